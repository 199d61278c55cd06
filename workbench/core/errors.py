"""Errors meant for the user: one paragraph that says what was wrong and what to do."""


class WorkbenchError(Exception):
    """A problem the user can fix. The CLI prints its message without a traceback."""


class DataError(WorkbenchError):
    """The input data cannot be read or does not fit the template."""


class TemplateError(WorkbenchError):
    """A template spec is invalid or unknown."""


class ProjectError(WorkbenchError):
    """A project folder is missing, damaged or in the wrong state."""


class Cancelled(WorkbenchError):
    """The user cancelled a long operation; nothing it would have written was left behind."""


def os_error_message(exc: OSError) -> str:
    """What a failed read or write means for the user, and what to do: the words the command
    line and the training worker print (the GUI's dialogs word their own, translated)."""
    import errno

    where = f" ({exc.filename})" if exc.filename else ""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        return (f"The disk is full{where}. Free some space, for example by deleting runs you no longer need "
                "from the project's runs folder (each keeps its checkpoints), then try again. What was saved "
                "before is intact: files are written in full before they replace the old ones.")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return (f"Workbench may not read or write this place{where}: {reason}. Choose a folder of your own "
                "(for example in your home folder), or ask the owner of this one for access, then try again.")
    if exc.errno in (errno.ENOTDIR, errno.EISDIR, errno.ENOENT, errno.EEXIST):
        return (f"A file or folder is not where it was expected{where}: {reason}. Check the path (a folder "
                "name may be taken by a file, or a folder may be missing), then try again.")
    return (f"A file could not be read or written{where}: {reason}. Check that it exists, that you may "
            "open it and that the disk is not full, then try again.")
