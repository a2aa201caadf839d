"""firmware_bridge"""
