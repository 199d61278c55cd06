"""Errors meant for the user: one paragraph that says what was wrong and what to do."""


class WorkbenchError(Exception):
    """A problem the user can fix. The CLI prints its message without a traceback."""


class DataError(WorkbenchError):
    """The input data cannot be read or does not fit the template."""


class TemplateError(WorkbenchError):
    """A template spec is invalid or unknown."""


class ProjectError(WorkbenchError):
    """A project folder is missing, damaged or in the wrong state."""
