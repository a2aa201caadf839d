"""The one exception a command raises for a mistake the user can fix."""


class UserError(Exception):
    """Bad input or setup: the message is one line that names the problem and what to do."""
