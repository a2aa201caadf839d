"""The table's devices, each with a real backend and a simulated one, chosen in configuration.

- `hardware.leds`: LED rings under the fields (`LedRings`), rpi-ws281x, bridge or simulated strip.
- `hardware.encoder`: the Black DOG disc (`GpioDiscEncoder`, `BridgeDiscEncoder`), quarter turns.
- `hardware.buttons`: confirm, undo, hint, mode (`GpioButtons`, `BridgeButtons`).
- `hardware.camera`: OpenCV, picamera2, file, and the simulated table.
- `hardware.simtable`: renders a position as the camera sees it; `PlayTable` to play on.
- `hardware.factory.open_devices(settings, simulate)`: everything from `hardware.settings`.
- `hardware.selftest.run_self_test(devices)`: what `dogtable hw test` reports.

Imports `engine` and `firmware_bridge` only.
"""
