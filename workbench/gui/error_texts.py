"""What the core and the child commands report, in the interface language.

A :class:`~workbench.core.errors.WorkbenchError` carries a stable ``code`` and the ``fields``
its text is made from, beside the English message the command line prints; a child command
run with ``--json`` ends with the same code and fields (core.progress.error_record), and a
server check lists its problems that way. The window looks the code up here and fills the
fields into a translated text, in its own words (a menu, not a command to type). A code this
table does not know (a newer core, a rare error) shows the core's English message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ..core.errors import os_error
from .i18n import join_list

CONTEXT = "ErrorText"

# code -> (text, the fields that fill {0}, {1}, ...)
TEXTS: dict[str, tuple[str, tuple[str, ...]]] = {
    # ----- servers (core/remote.py, core/targets.py)
    "server_key_changed": (QT_TRANSLATE_NOOP(
        "ErrorText", "Warning: the identity key of server {0} ({1}) has changed since this computer last connected. "
        "Someone may be intercepting the connection, or the server was reinstalled. Nothing was sent. Ask the "
        "server's administrator for its key fingerprint; only if it matches, remove the old key with “{2}” and "
        "connect again."), ("server", "url", "command")),
    "server_login_refused": (QT_TRANSLATE_NOOP(
        "ErrorText", "Server {0} ({1}) refused the login. Workbench asks for no password and stores none: it logs in "
        "with your SSH key. Add your public key to the server (for example with “{2}”) or load it into your SSH "
        "agent, then try again."), ("server", "url", "command")),
    "server_name_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "The name of server {0} ({1}) cannot be found. Check the address, or your network."),
        ("server", "url")),
    "server_unreachable": (QT_TRANSLATE_NOOP(
        "ErrorText", "Server {0} ({1}) cannot be reached: {2}. Check that it is on and that SSH runs on it, then try "
        "again; a run already started there goes on meanwhile."), ("server", "url", "reason")),
    "server_connection_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "The connection to server {0} ({1}) failed: {2}"), ("server", "url", "detail")),
    "ssh_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The OpenSSH client (ssh) is not installed on this computer. Install it (Debian and Ubuntu: the "
        "package openssh-client; Windows: the optional feature “OpenSSH Client”)."), ()),
    "server_no_answer": (QT_TRANSLATE_NOOP(
        "ErrorText", "Server {0} did not answer within {1} s; try again."), ("server", "seconds")),
    "server_command_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "On server {0} the command failed: {1}"), ("server", "detail")),
    "server_check_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "The check on server {0} failed: {1}"), ("server", "detail")),
    "server_disk_small": (QT_TRANSLATE_NOOP(
        "ErrorText", "This run needs about {1} GB of disk on server {0} for its checkpoints and weights, and its work "
        "folder {2} has {3} GB free. Free some space there, or keep fewer checkpoints (Checkpoints kept, now {4}), "
        "then start again."), ("server", "need_gb", "folder", "free_gb", "keep")),
    "server_without_workbench": (QT_TRANSLATE_NOOP(
        "ErrorText", "Workbench is not installed for {0} on the server. Install it there with “{1}”; “workbench "
        "targets wheelhouse DIR” on this computer writes that constraints file, and every wheel for a server without "
        "internet."), ("python", "command")),
    "server_other_version": (QT_TRANSLATE_NOOP(
        "ErrorText", "The server has Workbench {0}, this computer {1}. Install the same version there with “{2}”; "
        "“workbench targets wheelhouse DIR” on this computer writes that constraints file."),
        ("there", "here", "command")),
    "server_paddle_check_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "Paddle's own check failed on the server: {0}"), ("detail",)),
    "server_without_device": (QT_TRANSLATE_NOOP(
        "ErrorText", "The server's Paddle finds no {0} device (it finds: {1}). Install the Paddle build for that "
        "device there, or add the server again with the devices “cpu”."), ("device", "devices")),
    "servers_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The list of servers in {0} cannot be read. Fix or delete the file."), ("path",)),
    "server_not_registered": (QT_TRANSLATE_NOOP(
        "ErrorText", "No server is registered as {0}. Add it with Servers… on the Train page."), ("server",)),
    "server_name_taken": (QT_TRANSLATE_NOOP(
        "ErrorText", "A server named {0} is already registered; remove it first or choose another name."),
        ("server",)),
    # ----- data files (core/io)
    "file_not_found": (QT_TRANSLATE_NOOP(
        "ErrorText", "The file {0} was not found. Check the path, or pick the file again."), ("path",)),
    "file_is_folder": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is a folder, not a file. Choose one data file inside it."), ("path",)),
    "file_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} cannot be read ({1}). Check that you may open it and that it is not damaged."),
        ("name", "reason")),
    "file_empty": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is empty (0 bytes). Choose a file that contains data."), ("name",)),
    "file_no_permission": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} cannot be opened: you may not read it. Check its permissions, or copy it to a folder of "
        "your own."), ("name",)),
    "file_too_large": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is too large to load into memory on this computer. Split it into smaller files or close "
        "other programs, then try again."), ("name",)),
    "file_without_rows": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no data rows: only a header (column names) was found. Add at least one row of data "
        "below the header."), ("name",)),
    # ----- projects (core/project.py)
    "not_a_project": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a Workbench project. Create one with File › New project…, or open another folder."),
        ("path",)),
    "project_damaged": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is damaged and cannot be read. Restore it from a backup, or create a new project and "
        "import the data again."), ("path",)),
    "prepare_while_training": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} is training on this project's prepared data, so the data was not prepared again (its "
        "evaluation and a resume read the same files). Wait until it ends, or stop it on the Train page, then "
        "prepare again; your cleaning steps and choices are kept."), ("run",)),
    "project_of_other_template": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} already holds a project of another template ({1}). Choose an empty folder or the same "
        "template."), ("path", "template")),
    "folder_not_empty": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} exists and is not empty. Choose an empty or new folder for the project."), ("path",)),
    # ----- runs, evaluation and export (core/operations/runs.py, core/trained.py, engine/export)
    "project_not_prepared": (QT_TRANSLATE_NOOP(
        "ErrorText", "This project has no prepared data yet. Prepare it on the Data page first."), ()),
    "no_base_model": (QT_TRANSLATE_NOOP(
        "ErrorText", "Choose a base model: a built-in model, a model folder on this computer or a model id."), ()),
    "disk_too_small": (QT_TRANSLATE_NOOP(
        "ErrorText", "This run needs about {0} GB of disk for its checkpoints and weights, and the disk of {2} has {1} "
        "GB free. Free some space (runs you no longer need can be deleted), or keep fewer checkpoints "
        "(Checkpoints kept, now {3}), then start again."), ("need_gb", "free_gb", "path", "keep")),
    "run_busy": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} is already running. Wait until it ends, or stop it on the Train page."), ("run",)),
    "run_completed": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} has completed; start a new run to train further."), ("run",)),
    "run_without_checkpoint": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} saved no checkpoint before it ended, so there is nothing to resume from. Start a new "
        "run instead."), ("run",)),
    "run_still_training": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} is still training. Wait until it ends, or stop it on the Train page, then evaluate or "
        "export its last checkpoint."), ("run",)),
    "run_not_started": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} has not started training yet, so there is nothing to evaluate or export."), ("run",)),
    "run_without_weights": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} ended before saving a checkpoint, so it has no trained weights to evaluate or export. "
        "Train again, saving checkpoints more often."), ("run",)),
    # ----- base models (core/operations/models.py)
    "model_name_without_id": (QT_TRANSLATE_NOOP(
        "ErrorText", "“{0}” gives the model no id: an id needs a letter or digit in Latin script. Rename the file or "
        "folder so that its name holds one (such as qwen2-0.5b-legal), then add it again."), ("name",)),
    "model_path_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} does not exist. Choose a GGUF file (.gguf) or a model folder (with config.json)."),
        ("path",)),
    "model_not_gguf": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is neither a GGUF model file nor a folder. Choose a .gguf file, or the folder that holds "
        "config.json, the weights and the tokenizer."), ("path",)),
    "model_without_config": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no config.json, so it is not a model folder. Choose the folder that holds config.json, "
        "the weights (*.safetensors) and the tokenizer files."), ("path",)),
    "model_damaged": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} cannot be read: the model folder looks damaged. Copy it again, then add it again."),
        ("path",)),
    "model_weights_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model folder {0} lacks {1} of its {2} weight files ({3}). Copy the complete folder, then add "
        "it again."), ("path", "missing", "total", "files")),
    "model_without_weights": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model folder {0} has no weights (*.safetensors). Copy the complete folder, with its weight "
        "files (.bin and .pdparams files are not added)."), ("path",)),
    "model_without_tokenizer": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model folder {0} has no tokenizer (tokenizer.json, tokenizer.model or vocab.json). Copy the "
        "model's tokenizer files into the folder."), ("path",)),
    "model_in_store": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is inside Workbench's own model folder; its models are in the list already."), ("path",)),
    "model_registered": (QT_TRANSLATE_NOOP(
        "ErrorText", "The folder {0} is in the list already, as {1}. Choose that one, or remove it first."),
        ("path", "name")),
    "export_folder_not_empty": (QT_TRANSLATE_NOOP(
        "ErrorText", "The output folder {0} already exists and is not empty. Choose a new folder (or delete the old "
        "export first); an export never overwrites files."), ("path",)),
    # ----- the label review (engine/review.py): refusals, then the reasons a row looks wrong
    "review_not_prepared": (QT_TRANSLATE_NOOP(
        "ErrorText", "Project {0} has not been prepared yet, so it has no rows to review. Prepare the data first on "
        "the Data page."), ("path",)),
    "review_not_classification": (QT_TRANSLATE_NOOP(
        "ErrorText", "Only classification projects can be reviewed for wrong labels: this project's rows are "
        "questions and answers, which have no label to check."), ()),
    "review_multi_label": (QT_TRANSLATE_NOOP(
        "ErrorText", "This project gives each row a set of labels. Reviewing and correcting label sets is not "
        "supported yet; only projects with one label per row can be reviewed."), ()),
    "review_one_label": (QT_TRANSLATE_NOOP(
        "ErrorText", "The training and validation rows carry fewer than two labels ({0}), so no label can be mistaken "
        "for another. Prepare the data again with at least two labels."), ("labels",)),
    "review_too_few_rows": (QT_TRANSLATE_NOOP(
        "ErrorText", "Too few rows to cross-validate: every label needs at least {1} training and validation rows, "
        "and {0} have fewer. Add rows, or merge or exclude these labels on the Data page, then review again."),
        ("labels", "need")),
    "review_run_not_classification": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} was not trained to give one label per row, so it cannot judge these labels. Review "
        "without a run, or choose a classification run."), ("run",)),
    "review_run_labels_differ": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} was trained on another label set: it has no {1}. Review without a run, or train a run "
        "on the data as it is prepared now."), ("run", "labels")),
    "model_prefers": (QT_TRANSLATE_NOOP(
        "ErrorText", "the model gives {1} to {0} and {3} to {2}"), ("label", "probability", "given",
                                                                     "given_probability")),
    "model_unsure": (QT_TRANSLATE_NOOP(
        "ErrorText", "the model gives only {1} to {0}"), ("given", "given_probability")),
    "run_prefers": (QT_TRANSLATE_NOOP(
        "ErrorText", "run {0} gives {2} to {1} and {4} to {3}"), ("run", "label", "probability", "given",
                                                                  "given_probability")),
    "duplicates_disagree": (QT_TRANSLATE_NOOP(
        "ErrorText", "identical texts labelled {1}: {0}"), ("count", "label")),
    "near_duplicates_disagree": (QT_TRANSLATE_NOOP(
        "ErrorText", "nearly identical texts labelled {1}: {0} (similarity {2}): {3}"),
        ("count", "label", "similarity", "row_ids")),
}

# the words a field's value stands for
REASONS = {  # why a server cannot be reached (core.remote.UNREACHABLE)
    "refused": QT_TRANSLATE_NOOP("ErrorText", "it refused the connection"),
    "timed_out": QT_TRANSLATE_NOOP("ErrorText", "the connection timed out"),
    "no_route": QT_TRANSLATE_NOOP("ErrorText", "there is no route to it"),
    "no_network": QT_TRANSLATE_NOOP("ErrorText", "the network is unreachable"),
    "closed": QT_TRANSLATE_NOOP("ErrorText", "it closed the connection"),
    "reset": QT_TRANSLATE_NOOP("ErrorText", "the connection was reset"),
}
SERVER_FIELDS = {  # a server's setting that is not valid (core.targets.Target)
    "name": QT_TRANSLATE_NOOP("ErrorText", "The name is not valid: use letters, digits, dots, underscores or "
                              "dashes (at most 64), starting with a letter or digit."),
    "url": QT_TRANSLATE_NOOP("ErrorText", "The address is not valid: write it as ssh://user@host or "
                             "ssh://user@host:port, with no password."),
    "devices": QT_TRANSLATE_NOOP("ErrorText", "The devices are not valid: write cpu, or a device kind and numbers "
                                 "such as gpu:0,1 or npu:0."),
}
OS_ERRORS = {  # a read or write the system refused (core.errors.os_error): with the place, and without
    "disk_full": (
        QT_TRANSLATE_NOOP("ErrorText", "The disk is full ({0}). Free some space, for example by deleting runs you no "
                          "longer need, then try again. What was saved before is intact."),
        QT_TRANSLATE_NOOP("ErrorText", "The disk is full. Free some space, for example by deleting runs you no longer "
                          "need, then try again. What was saved before is intact.")),
    "no_access": (
        QT_TRANSLATE_NOOP("ErrorText", "Workbench may not read or write this place ({0}). Choose a folder of your own "
                          "(for example in your home folder), or ask the owner of this one for access, then try "
                          "again."),
        QT_TRANSLATE_NOOP("ErrorText", "Workbench may not read or write this place. Choose a folder of your own (for "
                          "example in your home folder), or ask the owner of this one for access, then try again.")),
    "not_where_expected": (
        QT_TRANSLATE_NOOP("ErrorText", "A file or folder is not where it was expected ({0}). Check the path (a folder "
                          "name may be taken by a file, or a folder may be missing), then try again."),
        QT_TRANSLATE_NOOP("ErrorText", "A file or folder is not where it was expected. Check the path (a folder name "
                          "may be taken by a file, or a folder may be missing), then try again.")),
    "io_error": (
        QT_TRANSLATE_NOOP("ErrorText", "A file could not be read or written ({0}): {1}. Check that it exists, that "
                          "you may open it and that the disk is not full, then try again."),
        QT_TRANSLATE_NOOP("ErrorText", "A file could not be read or written: {1}. Check that it exists, that you may "
                          "open it and that the disk is not full, then try again.")),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def _value(name: str, value: Any) -> Any:
    if name == "reason" and value in REASONS:
        return _tr(REASONS[value])
    if isinstance(value, (list, tuple)):
        return join_list(value) if value else _tr(QT_TRANSLATE_NOOP("ErrorText", "none"))
    return value


def _server_field(fields: dict[str, Any]) -> str | None:
    text = SERVER_FIELDS.get(str(fields.get("field")))
    return _tr(text) if text else None


def _not_text(fields: dict[str, Any]) -> str:
    if fields.get("kind"):
        found = _tr(QT_TRANSLATE_NOOP("ErrorText", "{0} is not a text file Workbench can read: it looks like a {1} "
                                                   "file.")).format(fields["name"], fields["kind"])
    else:
        found = _tr(QT_TRANSLATE_NOOP("ErrorText", "{0} is not a text file Workbench can read: it holds binary data, "
                                                   "or text in an encoding that could not be recognised.")).format(
            fields["name"])
    return found + " " + _tr(QT_TRANSLATE_NOOP(
        "ErrorText", "Workbench reads tables of text (CSV, TSV, or any text file with one row a line, whatever its "
        "suffix), Excel workbooks, JSON or JSON Lines, Parquet and TFRecord files. Check that you picked the right "
        "file, or save the data as CSV UTF-8 in the program that made it and import that file."))


def _key_unknown(fields: dict[str, Any]) -> str:
    if fields.get("fingerprint"):
        return _tr(QT_TRANSLATE_NOOP(
            "ErrorText", "Server {0} ({1}) is not known to this computer yet, so nothing was sent. It presents the key "
            "{2}. If your administrator confirms that fingerprint, accept it once with: {3}")).format(
            fields["server"], fields["url"], fields["fingerprint"], fields["command"])
    return _tr(QT_TRANSLATE_NOOP(
        "ErrorText", "Server {0} ({1}) is not known to this computer yet, so nothing was sent. If your administrator "
        "confirms its key fingerprint, accept it once with: {2}")).format(fields["server"], fields["url"],
                                                                          fields["command"])


def _os_error(code: str) -> Callable[[dict[str, Any]], str]:
    def text(fields: dict[str, Any]) -> str:
        with_path, without = OS_ERRORS[code]
        return _tr(with_path if fields.get("path") else without).format(fields.get("path"), fields.get("reason"))
    return text


# codes whose text depends on what their fields hold
WORDED: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "server_field_invalid": _server_field,
    "server_key_unknown": _key_unknown,
    "file_not_text": _not_text,
    **{code: _os_error(code) for code in OS_ERRORS},
}


def error_text(code: str | None, fields: dict[str, Any] | None, message: str) -> str:
    """The window's text for a problem the core named by ``code``; ``message`` (the core's
    English) when the code is unknown here or its fields do not fit."""
    fields = fields or {}
    try:
        if code in WORDED:
            return WORDED[code](fields) or message
        if code in TEXTS:
            text, names = TEXTS[code]
            return _tr(text).format(*(_value(n, fields[n]) for n in names))
    except (KeyError, IndexError, TypeError, ValueError):
        pass
    return message


def exception_text(exc: BaseException) -> str:
    """A WorkbenchError or a failed read or write in the interface language."""
    if isinstance(exc, OSError):
        exc = os_error(exc)
    return error_text(getattr(exc, "code", None), getattr(exc, "fields", None), str(exc))
