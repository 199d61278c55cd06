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

from ..core.cleaning.steps import STEPS
from ..core.errors import os_error
from .i18n import content_lang, join_list

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
    "data_version_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "Data version {0} of the project {1} is missing, so a run that trained on it cannot read its "
        "rows. Restore the project's data folder from a backup."), ("version", "path")),
    "data_version_damaged": (QT_TRANSLATE_NOOP(
        "ErrorText", "Data version {0} of the project {1} does not match the rows it was made from (version {2} "
        "was changed). Restore the project's data folder from a backup, or prepare the data again and train a new "
        "run."), ("version", "path", "base")),
    # ----- corrections of labels (core/corrections.py, core/operations/corrections.py)
    # ----- judgements of answers and preference tuning (core/feedback.py, core/preference.py)
    "feedback_not_instruction": (QT_TRANSLATE_NOOP(
        "ErrorText", "Judgements of answers and preference tuning are for projects that write answers; this project "
        "classifies."), ()),
    "feedback_unknown_id": (QT_TRANSLATE_NOOP(
        "ErrorText", "No judgement has the id {0}."), ("id",)),
    "feedback_already_undone": (QT_TRANSLATE_NOOP(
        "ErrorText", "Judgement {0} was already taken back."), ("id",)),
    "feedback_bad_lines": (QT_TRANSLATE_NOOP(
        "ErrorText", "Some lines cannot be recorded (lines {0}), so nothing was recorded: {1}."), ("lines", "first")),
    "feedback_empty": (QT_TRANSLATE_NOOP("ErrorText", "The file holds no judgements."), ()),
    "feedback_not_utf8": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not UTF-8 text; save it as UTF-8 JSON lines."), ("path",)),
    "feedback_no_questions": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is neither a split of the project nor a file of questions."), ("path",)),
    "feedback_bad_questions": (QT_TRANSLATE_NOOP(
        "ErrorText", "Line {0} of the file of questions is not a JSON object."), ("line",)),
    "feedback_rows": (QT_TRANSLATE_NOOP("ErrorText", "Ask for at least one question."), ()),
    "dpo_needs_from_run": (QT_TRANSLATE_NOOP(
        "ErrorText", "Tuning on your judgements starts from a run: choose the run whose answers you judged."), ()),
    "dpo_from_run_classifies": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} classifies; tuning on your judgements starts from a run that writes answers."), ("run",)),
    "dpo_from_run_without_weights": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} has no trained weights to start from ({1}); choose a run that completed or saved a "
        "checkpoint."), ("run", "status")),
    "dpo_from_run_elsewhere": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} trained elsewhere ({2}), so its model is not on server {1}. Start the tuning where the "
        "first run trained."), ("run", "server", "where")),
    "dpo_pairs_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is missing: the run does not know which judgements it trains on. Start a new run."),
        ("path",)),
    "dpo_no_pairs": (QT_TRANSLATE_NOOP(
        "ErrorText", "There are no pairs of answers to tune on yet ({0} answers rated good have no answer rated bad "
        "to the same question). Choose between two answers, rewrite an answer rated bad, or rate good and bad "
        "answers to the same question."), ("unpaired_good",)),
    "dpo_too_few_pairs": (QT_TRANSLATE_NOOP(
        "ErrorText", "All {0} pairs of answers are about one question, so none can be held out to show whether "
        "tuning helped. Judge answers to at least two questions."), ("pairs",)),
    "review_not_prepared": (QT_TRANSLATE_NOOP(
        "ErrorText", "The project has no prepared data yet, so it has no rows to review. Prepare the data on the Data "
        "page first."), ()),
    "review_not_classification": (QT_TRANSLATE_NOOP(
        "ErrorText", "Only classification projects can be reviewed for wrong labels: this project's rows are "
        "questions and answers, which have no label to check."), ()),
    "review_multi_label": (QT_TRANSLATE_NOOP(
        "ErrorText", "This project gives each row a set of labels, and the review suggests single labels: only "
        "projects with one label per row can be reviewed. Correct a row's label set in the table on the Data page: "
        "right-click the row."), ()),
    "review_one_label": (QT_TRANSLATE_NOOP(
        "ErrorText", "The training and validation rows carry fewer than two labels, so there is nothing a label could "
        "be confused with. Prepare the data again with at least two labels."), ()),
    "review_too_few_rows": (QT_TRANSLATE_NOOP(
        "ErrorText", "Too few rows to review: every label needs at least {1} training and validation rows, and {0} "
        "have fewer. Add rows, or merge or exclude these labels on the Data page's Labels tab, then review again."),
        ("labels", "need")),
    "review_run_not_classification": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} was not trained to give one label per row, so it cannot judge these labels."), ("run",)),
    "review_run_labels_differ": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} was trained on another label set: it has no {1}. Train a run on the project as it is "
        "prepared now."), ("run", "labels")),
    "corrections_not_classification": (QT_TRANSLATE_NOOP(
        "ErrorText", "Corrections are for the labels of a classification project; this project writes answers."),
        ()),
    "corrections_need_prepare": (QT_TRANSLATE_NOOP(
        "ErrorText", "This project's data was prepared before rows had ids, so a correction could not find its row "
        "again. Prepare the data again on the Data page (your steps and choices are kept), then correct."), ()),
    "corrections_unknown_rows": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} row(s) match no row of the project's data: {1}. Nothing was changed. The data may have been "
        "prepared again from another file since; evaluate the run again to see its rows."), ("count", "rows")),
    "corrections_unknown_labels": (QT_TRANSLATE_NOOP(
        "ErrorText", "The project has no label {0}, so nothing was changed. Use one of: {1}."), ("labels", "known")),
    "corrections_bad_header": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} must have the columns row_id and label (it has {1}). Write one row per correction, with an "
        "empty label to exclude the row."), ("path", "columns")),
    "corrections_damaged": (QT_TRANSLATE_NOOP(
        "ErrorText", "The corrections file {0} is damaged and cannot be read. Restore it from a backup, or remove it "
        "to start without corrections."), ("path",)),
    "corrections_bad_set": (QT_TRANSLATE_NOOP(
        "ErrorText", "“{0}” is not a row id and a label joined by “=” (an empty label excludes the row)."), ("item",)),
    "corrections_nothing": (QT_TRANSLATE_NOOP(
        "ErrorText", "Nothing to correct: give a file of corrections, a row id with its new label, a row to mark as "
        "not sure or a correction to undo."), ()),
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
    # ----- data files (core/io), continued
    "file_blank": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is empty: it holds only blank lines or spaces. Choose a file that contains data."),
        ("name",)),
    "file_without_columns": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no columns. Its first line or record should name the columns."), ("name",)),
    "file_without_header": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no columns: no header line was found. Its first line should hold the column names."),
        ("name",)),
    "table_extra_fields": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has rows with more fields than the header has column names (the first is data row {1}, "
        "counting from the line after the header: {2} fields, header {3}). A value probably contains the delimiter "
        "without quotes. Put that value in quotes, or add the missing column name to the header, then import the "
        "file again."), ("name", "row", "width", "header")),
    "table_ragged": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a regular table: line {1} has {2} fields but the header has {3} (fields are "
        "separated by {4}). A value probably contains the delimiter without quotes. Put that value in double quotes, "
        "or fix the line, then import the file again."), ("name", "line", "found", "expected", "delimiter")),
    "table_open_quote": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has a quotation mark that is never closed, starting at row {1}. Close or remove the stray "
        "quotation mark, then import the file again."), ("name", "row")),
    "table_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} could not be read as a table ({1}). Check that it is a CSV or TSV file, then import it "
        "again."), ("name", "detail")),
    "file_mixed_encoding": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} could not be decoded as {1} text (a byte at position {2} does not fit): the file probably "
        "mixes encodings. Save it again as UTF-8 (in Excel: “CSV UTF-8”), then import it again."),
        ("name", "encoding", "position")),
    "excel_holds_text": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a real Excel workbook: its content looks like text (perhaps a CSV file). Open it in "
        "Excel and save it as .xlsx, or give it the suffix of its real type."), ("name",)),
    "excel_not_workbook": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a real Excel workbook: its content looks like some other kind of file. Open it in "
        "Excel and save it as .xlsx, or give it the suffix of its real type."), ("name",)),
    "excel_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} could not be opened as an Excel workbook ({1}). It may be damaged, password-protected or "
        "not really an Excel file. Open it in Excel, save it again as .xlsx, then import it again."),
        ("name", "detail")),
    "excel_without_sheets": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} contains no worksheets. Add a sheet with data, then import it again."), ("name",)),
    "excel_sheet_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no sheet named {1}. Its sheets are: {2}. Choose one of them."),
        ("name", "sheet", "sheets")),
    "excel_sheet_empty": (QT_TRANSLATE_NOOP(
        "ErrorText", "Sheet {0} of {1} is empty. Choose the sheet that holds the data (sheets: {2})."),
        ("sheet", "name", "sheets")),
    "record_without_turns": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0}: record {1} has no “{2}” list of turns like the other records. Fix or remove that record, "
        "then import the file again."), ("name", "record", "key")),
    "json_bad_start": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not valid JSON: it should start with a square bracket (a list of records) or a curly "
        "brace (one record per line, JSON Lines). Check that the file really is JSON."), ("name",)),
    "json_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not valid JSON: {1} at line {2}, column {3}. Fix the file there (a missing comma, quote "
        "or bracket is the usual cause), then try again."), ("name", "detail", "line", "column")),
    "jsonl_line_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0}: line {1} is not valid JSON ({2}, column {3}). In a JSON Lines file every line holds one "
        "complete JSON value. Fix that line, then try again."), ("name", "line", "detail", "column")),
    "jsonl_line_not_array": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0}: line {1} is not an array like the lines before it. Make every line the same kind, then "
        "try again."), ("name", "line")),
    "json_empty_list": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no data rows: the JSON holds an empty list. Add records, then import it again."),
        ("name",)),
    "json_item_not_object": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0}: item {1} of the list is not an object with named fields like the other records. Make "
        "every record the same kind, then import the file again."), ("name", "position")),
    "jsonl_line_not_object": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0}: line {1} is not an object with named fields like the other records. Make every record the "
        "same kind, then import the file again."), ("name", "position")),
    "parquet_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} could not be read as a Parquet file ({1}). It may be damaged or not really Parquet. Export "
        "it again, then import it again."), ("name", "detail")),
    "tfrecord_not_examples": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a TFRecord file of tf.train.Example records ({1}). Check that you picked the right "
        "file, and that it was written with tf.io.TFRecordWriter."), ("name", "detail")),
    "tfrecord_damaged": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is damaged at record {1} ({3}); the {2} records before it are fine. Write or copy the file "
        "again, then import it again."), ("name", "record", "good", "detail")),
    "tfrecord_empty": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no data rows: it holds no records. Choose a file with data."), ("name",)),
    "tfrecord_without_features": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no columns: its records hold no features."), ("name",)),
    "column_not_in_file": (QT_TRANSLATE_NOOP(
        "ErrorText", "The file has no column “{0}”; its columns are {1}."), ("column", "columns")),
    # ----- cleaning steps and labels (core/cleaning, core/labels)
    "recipe_too_new": (QT_TRANSLATE_NOOP(
        "ErrorText", "This cleaning recipe was written by a newer Workbench (recipe version {0}; this version reads "
        "version {1} and older). Update Workbench to use it."), ("version", "newest")),
    "recipe_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "The cleaning recipe is not valid: at “{0}”, {1}. Fix the recipe, then try again."),
        ("entry", "detail")),
    "recipe_not_json": (QT_TRANSLATE_NOOP(
        "ErrorText", "The cleaning recipe is not valid JSON ({0})."), ("detail",)),
    "recipe_file_not_json": (QT_TRANSLATE_NOOP(
        "ErrorText", "The cleaning recipe {0} is not valid JSON ({1})."), ("path", "detail")),
    "recipe_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The cleaning recipe {0} cannot be read ({1}). Check that it exists and that you may open it."),
        ("path", "detail")),
    "step_column_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} works on the column “{1}”, which the data does not have (its columns: {2}). Choose another "
        "column in the step, or remove the step."), ("step", "column", "columns")),
    "step_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is of a kind this version of Workbench does not know. Update Workbench, or remove the step."),
        ("step",)),
    "step_settings_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has a setting that is not valid: {1} Correct it in the step."), ("step", "detail")),
    "step_regex_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0}: the text to find or its replacement is not a valid regular expression ({1}). Correct it, "
        "or untick Regular expression."), ("step", "detail")),
    "label_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "“{0}” is not a label of this project."), ("label",)),
    "label_name_empty": (QT_TRANSLATE_NOOP(
        "ErrorText", "A label name cannot be empty."), ()),
    # ----- the split and the templates (core/split.py, core/templates.py, core/operations/save_template.py)
    "split_ratios_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "The split shares {0} must not be negative, the training share must be above zero, and together "
        "they must make 1."), ("ratios",)),
    "too_few_rows_to_split": (QT_TRANSLATE_NOOP(
        "ErrorText", "Only {0} rows are left; at least 3 are needed to split them into training, validation and test "
        "rows."), ("rows",)),
    "too_few_documents": (QT_TRANSLATE_NOOP(
        "ErrorText", "The rows come from only {0} documents; at least 3 are needed to keep each document in one of "
        "training, validation and test."), ("documents",)),
    "template_without_spec": (QT_TRANSLATE_NOOP(
        "ErrorText", "The template folder {0} has no {1}. Add one, or remove the folder."), ("path", "file")),
    "template_not_yaml": (QT_TRANSLATE_NOOP(
        "ErrorText", "The template file {0} is not valid YAML ({1}). Fix the file, then try again."),
        ("path", "detail")),
    "template_not_mapping": (QT_TRANSLATE_NOOP(
        "ErrorText", "The template file {0} must hold a mapping of fields at the top level."), ("path",)),
    "template_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "The template file {0} is not valid: {1}. Fix the file, then try again."), ("path", "detail")),
    "template_sample_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The template file {0} names the sample data {1}, which is not in {2}. Add the file, or correct "
        "the field sample_data."), ("path", "sample", "folder")),
    "template_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "There is no template {0}. The templates are: {1}."), ("template", "known")),
    "template_id_invalid": (QT_TRANSLATE_NOOP(
        "ErrorText", "The template id “{0}” may use only lower-case letters, digits, “_” and “-”, and must start "
        "with a letter or digit (for example hospital_triage)."), ("id",)),
    "template_id_taken": (QT_TRANSLATE_NOOP(
        "ErrorText", "A template with the id {0} exists already. Choose another id."), ("id",)),
    "template_folder_exists": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} exists already. Choose another id, or remove that folder."), ("path",)),
    # ----- runs (core/jobs.py, core/runs.py, core/trained.py, core/remote.py)
    "not_a_run": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a run folder (it has no job.json)."), ("path",)),
    "run_file_damaged": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is damaged ({1}); the run cannot be read."), ("path", "detail")),
    "run_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "There is no run {0} in this project. Its runs: {1}."), ("run", "runs")),
    "checkpoint_choice_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "Checkpoint {0} is not a choice; choose the best or the last checkpoint."), ("checkpoint",)),
    "multi_label_needs_head": (QT_TRANSLATE_NOOP(
        "ErrorText", "This project has several labels per row, which a model writing its label as text does not "
        "learn. Train {0} with a classification head (the default), or choose the built-in classifier."), ("model",)),
    "run_is_local": (QT_TRANSLATE_NOOP(
        "ErrorText", "Run {0} trains on this computer, not on a server."), ("run",)),
    "server_copy_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "Copying to server {0} failed: {1}"), ("server", "detail")),
    "server_runs_unlisted": (QT_TRANSLATE_NOOP(
        "ErrorText", "Server {0} did not list its runs. Check it with Servers… on the Train page."), ("server",)),
    "server_delete_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "Server {0} did not delete run {1}: {2}"), ("server", "run", "detail")),
    "wheels_not_written": (QT_TRANSLATE_NOOP(
        "ErrorText", "The package files could not be written: {0}"), ("detail",)),
    # ----- the list of models and the registry's models (core/models_store.py, core/operations/models.py)
    "model_list_locked": (QT_TRANSLATE_NOOP(
        "ErrorText", "The list of models ({0}) is being changed by another Workbench window or command and stayed "
        "locked for {1} s. Wait for it to finish, then try again."), ("path", "seconds")),
    "model_list_damaged": (QT_TRANSLATE_NOOP(
        "ErrorText", "The list of models {0} is damaged ({1}). Move it aside to start an empty list (the model "
        "folders beside it stay), then add the models again."), ("path", "detail")),
    "model_id_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "No model in the list has the id {0} (the list holds: {1})."), ("model", "known")),
    "registered_model_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model {0} (id {1}) in the list has no model in its folder {2} any more. Put the folder "
        "back, or remove the model from the list (Remove, beside the list of models on the Train page) and add it "
        "again."), ("name", "model", "path")),
    "model_name_taken": (QT_TRANSLATE_NOOP(
        "ErrorText", "A model named {0} (id {1}) is already registered. Remove that one first (Remove, beside the "
        "list of models on the Train page), or add this one from a file or folder of another name."),
        ("name", "model")),
    "registry_model_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a model Workbench can get from the package registry; it has {1}. A model of your "
        "own is added with Add a model… on the Train page."), ("model", "known")),
    "registry_needs_pip": (QT_TRANSLATE_NOOP(
        "ErrorText", "This build of Workbench cannot install packages, and {0} is not part of it. Install it with "
        "pip in a Python 3.11 environment, take the GGUF file its assemble() writes, and add that file with Add a "
        "model… on the Train page."), ("package",)),
    "pip_not_started": (QT_TRANSLATE_NOOP(
        "ErrorText", "pip could not be started ({1}), so {0} cannot be installed. Install it yourself (“pip install "
        "{0}”), then try again."), ("package", "detail")),
    "registry_unreachable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The package registry could not be reached, or it does not have {0} (pip said: {1}). Check the "
        "network connection and the registry settings. On a computer without access, download the packages on one "
        "that has it (“pip download {0} -d wheels”), bring the folder over and install them (“pip install --no-index "
        "--find-links wheels {0}”), then try again."), ("package", "detail")),
    "pip_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "pip could not install {0} (pip said: {1}). Check the network connection and the registry "
        "settings. On a computer without access, download the packages on one that has it (“pip download {0} -d "
        "wheels”), bring the folder over and install them (“pip install --no-index --find-links wheels {0}”), then "
        "try again."), ("package", "detail")),
    "licence_not_accepted": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} comes under the {1}. Read them ({2}), then get the model again and accept them when "
        "Workbench asks (it asks once)."), ("name", "licence", "where")),
    # ----- predicting a file (core/operations/predict.py)
    "output_suffix_wrong": (QT_TRANSLATE_NOOP(
        "ErrorText", "The output {0} must end in .csv or .xlsx (CSV or Excel)."), ("name",)),
    "output_is_input": (QT_TRANSLATE_NOOP(
        "ErrorText", "The output must be a new file: your input file is never overwritten."), ()),
    "output_is_folder": (QT_TRANSLATE_NOOP(
        "ErrorText", "The output {0} is a folder; give a file name ending in .csv or .xlsx."), ("path",)),
    "input_text_column_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The file has no column for the text the model reads ({0}); its columns are {1}. Rename that "
        "column, or keep only the text column."), ("wanted", "columns")),
    "input_without_rows": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no rows to predict."), ("name",)),
    # ----- evaluation (engine/evaluation, engine/inference)
    "split_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "This project has no {0} prepared. Prepare the data again on the Data page."), ("split",)),
    "split_empty": (QT_TRANSLATE_NOOP(
        "ErrorText", "This project's {0} are empty, so there is nothing to evaluate on. Prepare the data again with "
        "a test share above zero (Split, on the Data page)."), ("split",)),
    "model_not_multi_label": (QT_TRANSLATE_NOOP(
        "ErrorText", "This model was not trained for several labels per row. Train the multi-label project again "
        "with the built-in classifier."), ()),
    "lora_adapter_unloadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The LoRA adapter in {0} cannot be loaded onto {1} ({2})."), ("path", "base", "detail")),
    # ----- export (engine/export)
    "export_formats_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "Unknown export formats: {0}. Choose from {1}."), ("formats", "known")),
    "gguf_type_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "The GGUF type {0} is unknown; choose f16, q8_0 or f32."), ("type",)),
    "target_platform_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "Packages cannot be pinned for {0}; choose one of {1} under Packages for."),
        ("platform", "known")),
    "export_tokenizer_differs": (QT_TRANSLATE_NOOP(
        "ErrorText", "The exported tokenizer.json splits a test prompt into other tokens than the model's tokenizer, "
        "so predict.py would feed the model different tokens. So nothing was exported."), ()),
    "export_label_sets_differ": (QT_TRANSLATE_NOOP(
        "ErrorText", "The exported classifier gives other label sets than the evaluation on some test inputs, so it "
        "was not exported."), ()),
    "export_labels_differ": (QT_TRANSLATE_NOOP(
        "ErrorText", "The exported classifier picks a different label from the evaluation on some test inputs, so it "
        "was not exported."), ()),
    "bundle_script_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "The bundle's predict.py failed on test rows (exit status {0}): {1}"), ("status", "detail")),
    "bundle_script_differs": (QT_TRANSLATE_NOOP(
        "ErrorText", "On test rows the bundle's predict.py answered {0} where the evaluation answers {1}."),
        ("got", "want")),
    "bundle_package_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The package {0}, which the bundle needs, is not installed here, so the bundle's requirements "
        "cannot be pinned. Reinstall Workbench."), ("package",)),
    "wheelhouse_without_pip": (QT_TRANSLATE_NOOP(
        "ErrorText", "This installation has no pip, so it cannot download the bundle's packages. Export without them "
        "(untick Also the files of every package it needs), then download them into the bundle on a computer with "
        "Python (“pip download -r requirements.lock -d wheels”)."), ()),
    "wheelhouse_timeout": (QT_TRANSLATE_NOOP(
        "ErrorText", "Downloading the bundle's packages took longer than {0} minutes. Export again, or without them "
        "(untick Also the files of every package it needs)."), ("minutes",)),
    "wheelhouse_download_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "The bundle's packages could not be downloaded (this needs a package index once, at export): "
        "{0}. Export without them, or where the index is reachable."), ("detail",)),
    "wheelhouse_incomplete": (QT_TRANSLATE_NOOP(
        "ErrorText", "The downloaded packages do not install the bundle's requirements.lock on their own: {0}"),
        ("detail",)),
    "wheelhouse_platform_lacks_wheel": (QT_TRANSLATE_NOOP(
        "ErrorText", "The bundle's packages cannot be fetched: {0}. Export without them, or for another system under "
        "Packages for."), ("detail",)),
    "wheelhouse_unavailable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The bundle's packages cannot be fetched: {0}. Export without them, or where a package index is "
        "reachable."), ("detail",)),
    "generation_export_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "The generation model could not be exported: {0} So nothing was exported."), ("detail",)),
    "tokenizer_not_convertible": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model's tokenizer ({0}) has no tokenizer.json and could not be converted to one ({1}), so "
        "predict.py could not tokenize without the training software."), ("tokenizer", "detail")),
    "int8_nothing_to_quantise": (QT_TRANSLATE_NOOP(
        "ErrorText", "This model has no linear layers for weight-only int8 to quantise. Export it without the 8-bit "
        "(int8) model."), ()),
    "chat_template_changes_text": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tokenizer's chat template changes the user's text, so the prompt cannot be written as "
        "plain text for predict.py."), ()),
    "chat_template_not_fixed": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tokenizer's chat template formats some inputs differently from a fixed prefix and suffix, "
        "so predict.py could not reproduce the prompt."), ()),
    "static_model_not_written": (QT_TRANSLATE_NOOP(
        "ErrorText", "The static model's files were not written ({0}). Export again."), ("path",)),
    "export_shape_differs": (QT_TRANSLATE_NOOP(
        "ErrorText", "The exported model returned outputs of shape {0} where the trained model returns {1}."),
        ("got", "want")),
    "gguf_logits_shape": (QT_TRANSLATE_NOOP(
        "ErrorText", "The GGUF file's scores have the shape {0} where the trained model's have {1}, so it was not "
        "exported."), ("got", "want")),
    "gguf_answers_differ": (QT_TRANSLATE_NOOP(
        "ErrorText", "The GGUF file's own answers leave the trained model's on {0} of {1} test prompts at a token "
        "the trained model clearly prefers, so llama.cpp would answer differently from the trained model; it was not "
        "exported. Untick GGUF and export again."), ("forks", "prompts")),
    "gguf_logits_differ": (QT_TRANSLATE_NOOP(
        "ErrorText", "The GGUF file's scores differ from the trained model's by up to {0} (allowed {1}; the next "
        "token agrees at {2} % of {3} positions), so it was not exported. Untick GGUF and export again."),
        ("difference", "allowed", "agreement", "positions")),
    "gguf_vocabulary_differs": (QT_TRANSLATE_NOOP(
        "ErrorText", "The vocabulary written to the GGUF file splits {0} of {1} test prompts into other tokens than "
        "the model's tokenizer, so llama.cpp would feed the model other tokens; it was not exported."),
        ("differ", "prompts")),
    "gguf_modelfile_differs": (QT_TRANSLATE_NOOP(
        "ErrorText", "The Modelfile's template gives other prompts than the engine for some test inputs, so ollama "
        "would not prompt the model as it was trained."), ()),
    "modelfile_template_unusable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model's chat template repeats or drops the user's text, so it cannot be written as an "
        "ollama template."), ()),
    "modelfile_triple_quotes": (QT_TRANSLATE_NOOP(
        "ErrorText", "The text holds three double quotation marks in a row, which a Modelfile cannot quote."), ()),
    # ----- GGUF files read and written (engine/gguf)
    "cancelled": (QT_TRANSLATE_NOOP(
        "ErrorText", "Cancelled; nothing was written and nothing is left behind."), ()),
    "gguf_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a readable GGUF file ({1}). It may be incomplete (a download that stopped early) or "
        "another kind of file; download or copy it again."), ("name", "detail")),
    "gguf_cut_short": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is cut short: its tensor {1} ends past the end of the file ({2} bytes). Download or copy "
        "the file again."), ("name", "tensor", "size")),
    "gguf_architecture_unsupported": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} holds a model of the {1} architecture, which Workbench cannot convert. It converts GGUF "
        "files of these families: {2}. Choose a GGUF file of one of them."), ("name", "arch", "families")),
    "gguf_tensor_type_unsupported": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tensor {0} is stored as {1}, which Workbench cannot read yet. Use a GGUF file of another "
        "quantisation (for example Q4_K_M, Q8_0 or F16)."), ("tensor", "type")),
    "gguf_tensor_size_wrong": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tensor {0} holds {1} values where the file's header says {2}: the file is damaged. "
        "Download or copy it again."), ("tensor", "values", "shape")),
    "gguf_tensor_shape_wrong": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tensor {0} has the shape {1}, not {2}."), ("tensor", "shape", "want")),
    "gguf_key_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The GGUF file lacks {0}, which describes the model. The file may be damaged or written by an "
        "unusual tool; use another copy."), ("key",)),
    "gguf_rope_unsupported": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model uses {0} rope scaling, which Workbench cannot carry over yet."), ("kind",)),
    "gguf_rope_freqs_unknown": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model scales its rope frequencies in a way Workbench does not recognise (its rope_freqs "
        "tensor is not Llama 3.1's scaling); it cannot be converted yet."), ()),
    "gguf_partial_rotary": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model rotates {0} of its {1} head dimensions, which a plain {2} model does not; Workbench "
        "cannot convert this variant."), ("rotary", "head_dim", "family")),
    "gguf_without_vocabulary": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} holds no tokenizer vocabulary (tokenizer.ggml.tokens), which the model needs. Use a GGUF "
        "file converted with its tokenizer."), ("name",)),
    "gguf_tensor_unexpected": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} holds a tensor {1} that a plain {2} model does not have; it may be a variant (mixture of "
        "experts, vision) Workbench cannot convert."), ("name", "tensor", "family")),
    "gguf_without_embedding": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no token embedding (token_embd.weight); the file is incomplete."), ("name",)),
    "gguf_vocabulary_mismatch": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has {1} tokens in its vocabulary but {2} rows in its embedding; the file is inconsistent."),
        ("name", "tokens", "rows")),
    "gguf_without_merges": (QT_TRANSLATE_NOOP(
        "ErrorText", "The GGUF file's byte-level vocabulary has no merge list (tokenizer.ggml.merges); its tokenizer "
        "cannot be rebuilt. Use another copy of the file."), ()),
    "gguf_tokenizer_unsupported": (QT_TRANSLATE_NOOP(
        "ErrorText", "The GGUF file's tokenizer is of the {0} kind; Workbench rebuilds SentencePiece (llama) and "
        "byte-level BPE (gpt2) tokenizers. Use a model with one of them."), ("kind",)),
    "convert_folder_exists": (QT_TRANSLATE_NOOP(
        "ErrorText", "The folder {0} already exists. Choose a new folder name for the converted model."), ("path",)),
    "parent_folder_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The folder {0} does not exist. Create it first, or choose another place."), ("path",)),
    "model_file_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} could not be read ({1}). Export the model again."), ("path", "detail")),
    "gguf_source_without_weights": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} holds no .safetensors weights; a GGUF file is written from merged weights (the format "
        "Merged weights)."), ("path",)),
    "gguf_source_without_tokenizer": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} has no tokenizer.json, which the GGUF file needs for its vocabulary. Export the model "
        "again."), ("path",)),
    "gguf_weight_type_unsupported": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tensor {0} in {1} is stored as {2}; only float32, float16 and bfloat16 weights can be "
        "written to GGUF."), ("tensor", "file", "type")),
    "gguf_builtin_classifier": (QT_TRANSLATE_NOOP(
        "ErrorText", "This model is the built-in classifier, which has no GGUF form; GGUF files are written for {0} "
        "language models."), ("families",)),
    "gguf_model_type_unsupported": (QT_TRANSLATE_NOOP(
        "ErrorText", "This model is of the type {0}, which has no GGUF form here; GGUF files are written for {1} "
        "language models."), ("model_type", "families")),
    "gguf_gemma_query_scale": (QT_TRANSLATE_NOOP(
        "ErrorText", "This Gemma 3 model scales its queries by {0}, where llama.cpp uses {1} for its size, so "
        "llama.cpp would not compute it as trained; it has no GGUF form."), ("scale", "assumed")),
    "gguf_rope_without_form": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model's rope scaling ({0}) has no GGUF form here; linear, yarn and Llama 3.1's scaling are "
        "written."), ("kind",)),
    "gguf_tokenizer_not_bpe": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model's tokenizer is of type {0}; GGUF files are written for BPE tokenizers (byte-level or "
        "SentencePiece-style)."), ("type",)),
    "gguf_weights_unexpected": (QT_TRANSLATE_NOOP(
        "ErrorText", "The weights hold a tensor {0} that a plain {1} model does not have, so the model has no GGUF "
        "form here."), ("tensor", "family")),
    "gguf_weights_without_embedding": (QT_TRANSLATE_NOOP(
        "ErrorText", "The weights have no token embedding (model.embed_tokens.weight). Export the model again."), ()),
    "gguf_file_exists": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} already exists; a GGUF file is never overwritten. Choose another name."), ("path",)),
    "gguf_tokenizer_mismatch": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tokenizer has {0} tokens but the embedding has {1} rows: the folder's tokenizer does not "
        "belong to its weights."), ("tokens", "rows")),
    # ----- loading a model (engine/families.py, engine/models)
    "model_type_unsupported": (QT_TRANSLATE_NOOP(
        "ErrorText", "Model type {0} is not supported. Workbench fine-tunes ERNIE 4.5, Qwen2, Qwen3, Llama and Gemma "
        "3 models (dense, text only). Choose a model of one of these families."), ("model_type",)),
    "model_folder_missing": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model folder {0} does not exist. Choose an existing folder."), ("path",)),
    "model_folder_is_file": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is a file, not a folder. Choose the folder that holds config.json and the weights."),
        ("path",)),
    "model_pickle_weights": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model folder {0} only has pickle-based weight files ({1}). Loading them can run arbitrary "
        "code, so Workbench does not load them. Convert the model to safetensors, then choose it again."),
        ("path", "files")),
    "model_weights_incomplete": (QT_TRANSLATE_NOOP(
        "ErrorText", "The weights in {0} do not match the model its config.json describes: {1} missing. The folder "
        "may be incomplete or hold a different model; copy it again."), ("path", "tensors")),
    "model_unloadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The model in {0} could not be loaded ({1}). The folder may be incomplete or damaged; copy it "
        "again."), ("path", "detail")),
    "tokenizer_unloadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tokenizer in {0} cannot be loaded ({1})."), ("path", "detail")),
    "tokenizer_without_eos": (QT_TRANSLATE_NOOP(
        "ErrorText", "The tokenizer in {0} defines no end-of-sequence token, which training needs."), ("path",)),
    "quantisation_unavailable": (QT_TRANSLATE_NOOP(
        "ErrorText", "A quantised base model cannot be used here: {0}"), ("detail",)),
    "quantisation_needs_half_precision": (QT_TRANSLATE_NOOP(
        "ErrorText", "A quantised base model needs the precision float16 or bfloat16."), ()),
    "model_hub_offline": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} is not a folder on this computer, and the model hub ({1}) cannot be reached: this computer "
        "looks offline. Add a model you have with Add a model…, or get Gemma 3 270M, on the Train page."),
        ("name", "hub")),
    "model_download_failed": (QT_TRANSLATE_NOOP(
        "ErrorText", "Downloading {0} from {1} failed ({2}). Check the model id, or choose a model folder on this "
        "computer."), ("name", "hub", "detail")),
    "model_not_on_hub": (QT_TRANSLATE_NOOP(
        "ErrorText", "{0} could not be downloaded from {1}. Check the model id, or choose a model folder on this "
        "computer."), ("name", "hub")),
    "device_unavailable": (QT_TRANSLATE_NOOP(
        "ErrorText", "Device {0} is not available on this computer (available: {1}). Choose one of those."),
        ("device", "devices")),
    "checkpoint_unreadable": (QT_TRANSLATE_NOOP(
        "ErrorText", "The checkpoint weights in {0} cannot be read ({1}). The checkpoint may be incomplete; train "
        "the run again."), ("path", "detail")),
    "checkpoint_mismatch": (QT_TRANSLATE_NOOP(
        "ErrorText", "The checkpoint in {0} does not fit this model: {1}. It was saved by another model or another "
        "version of the run; train again."), ("path", "detail")),
    "checkpoint_weights_wrong": (QT_TRANSLATE_NOOP(
        "ErrorText", "The weights of {0} do not load back as the model that saved them: on {1} validation rows their "
        "loss is {2} where the run measured {3} when it saved them. Their answers would be wrong, so they are not "
        "used. Resume the run, or train again."), ("source", "rows", "loss", "measured")),
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

DELIMITERS = {  # what separates a table's fields (core.io.textsniff.DELIMITER_NAMES)
    "comma": QT_TRANSLATE_NOOP("ErrorText", "commas"),
    "tab": QT_TRANSLATE_NOOP("ErrorText", "tabs"),
    "semicolon": QT_TRANSLATE_NOOP("ErrorText", "semicolons"),
    "vertical bar": QT_TRANSLATE_NOOP("ErrorText", "vertical bars"),
}
SPLITS = {  # a prepared split of the project's rows
    "test": QT_TRANSLATE_NOOP("ErrorText", "test rows"),
    "val": QT_TRANSLATE_NOOP("ErrorText", "validation rows"),
    "train": QT_TRANSLATE_NOOP("ErrorText", "training rows"),
}
NO_BASE_COMPARISON = {  # why a run is not compared with its base model (core.trained.NO_BASE_COMPARISON)
    "builtin": QT_TRANSLATE_NOOP(
        "ErrorText", "The built-in model starts untrained, so the model it started from answers at random: it is "
        "not worth comparing with. The baseline beside the results is the comparison."),
    "multi_label": QT_TRANSLATE_NOOP(
        "ErrorText", "A multi-label model has no base model to compare with (its head is trained from scratch); the "
        "baseline beside the results is the comparison."),
    "head": QT_TRANSLATE_NOOP(
        "ErrorText", "A classification head is trained from scratch with the run, so the model it started from has "
        "no head to compare with; the baseline beside the results is the comparison."),
}
NO_INT8 = {  # why a run has no int8 model (core.operations.export.NO_INT8)
    "builtin_classifier": QT_TRANSLATE_NOOP(
        "ErrorText", "The built-in classifier has nothing for int8 to quantise: its weights are tables of character "
        "n-gram embeddings, and its linear layers hold under 1 % of them. Export it without the 8-bit (int8) model: "
        "its static model is the one to ship."),
}
NO_GGUF = {  # why a run has no GGUF file (core.operations.export.NO_GGUF)
    "builtin_classifier": QT_TRANSLATE_NOOP(
        "ErrorText", "The built-in classifier has no GGUF form: llama.cpp and ollama run language models, and this "
        "is an n-gram classifier with a classification head. Untick GGUF and export again."),
    "head": QT_TRANSLATE_NOOP(
        "ErrorText", "A model with a classification head has no GGUF form: llama.cpp and ollama run language models "
        "that write text, and this one answers a probability for each of the project's labels. Untick GGUF and "
        "export again: its static model (and ONNX) carry the head, and predict.py and serve.py run it."),
}
CHECKED_PARTS = {  # what an export check compared with the trained model (engine.export.checks)
    "static": QT_TRANSLATE_NOOP("ErrorText", "The Paddle Inference model"),
    "merged": QT_TRANSLATE_NOOP("ErrorText", "The reloaded merged model"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def _step(fields: dict[str, Any]) -> str:
    """A cleaning step as the Data page names it: its number and its title, "Cleaning step 3 (Find
    and replace)"."""
    info = STEPS.get(str(fields.get("op")))
    title = (info.title_zh if content_lang() == "zh" else info.title) if info else str(fields.get("op"))
    number = fields.get("step")
    if number is None:
        return _tr(QT_TRANSLATE_NOOP("ErrorText", "Cleaning step “{0}”")).format(title)
    return _tr(QT_TRANSLATE_NOOP("ErrorText", "Cleaning step {0} ({1})")).format(number, title)


def _value(name: str, value: Any, fields: dict[str, Any]) -> Any:
    if name == "reason" and value in REASONS:
        return _tr(REASONS[value])
    if name == "step":
        return _step(fields)
    if name == "delimiter" and value in DELIMITERS:
        return _tr(DELIMITERS[value])
    if name == "split" and value in SPLITS:
        return _tr(SPLITS[value])
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


def _by_reason(texts: dict[str, str]) -> Callable[[dict[str, Any]], str | None]:
    def text(fields: dict[str, Any]) -> str | None:
        chosen = texts.get(str(fields.get("why")))
        return _tr(chosen) if chosen else None
    return text


def _export_differs(fields: dict[str, Any]) -> str | None:
    """An exported model that computes something else than the trained model: how far apart
    they are (engine.export.parity.error_figures), and that this is not rounding."""
    part, f = CHECKED_PARTS.get(str(fields.get("part"))), fields.get("figures")
    if part is None or not isinstance(f, dict):
        return None
    what = _tr(part)
    if "got" in f:
        sentences = [_tr(QT_TRANSLATE_NOOP("ErrorText", "{0} returns outputs of shape {1} where the trained model "
                                                        "returns {2}: the graph was traced wrongly.")).format(
            what, f["got"], f["want"])]
    elif f.get("finite") is False:
        sentences = [_tr(QT_TRANSLATE_NOOP("ErrorText", "{0} returns values that are not finite (NaN or infinite) "
                                                        "where the trained model's are finite: an operator converts "
                                                        "incorrectly.")).format(what)]
    else:
        sentences = [_tr(QT_TRANSLATE_NOOP("ErrorText", "{0} differs from the trained model by up to {1} on outputs "
                                                        "of scale {2}, a relative difference of {3}.")).format(
            what, f["difference"], f["scale"], f["relative"])]
        if "times" in f:
            sentences.append(_tr(QT_TRANSLATE_NOOP("ErrorText", "That is {0} times the {1} that fp32 rounding explains "
                                                                "for this model's size.")).format(f["times"], f["rounding"]))
        if "tokens" in f:
            sentences.append(_tr(QT_TRANSLATE_NOOP("ErrorText", "It picks another most likely token at {0} of {1} "
                                                                "positions where the trained model's choice is clear.")
                                 ).format(f["tokens"], f["positions"]))
        sentences.append(_tr(QT_TRANSLATE_NOOP(
            "ErrorText", "This is not rounding: an operator of the exported graph computes something else than the "
            "trained model (report it with the model family and the Paddle version).")))
    sentences.append(_tr(QT_TRANSLATE_NOOP("ErrorText", "So nothing was exported.")))
    return (" " if content_lang() == "en" else "").join(sentences)


def _no_pairs(fields: dict[str, Any]) -> str:
    """No preference pairs yet: answers rated good alone are named only where there are some."""
    if fields.get("unpaired_good"):
        return _tr(TEXTS["dpo_no_pairs"][0]).format(fields["unpaired_good"])
    return _tr(QT_TRANSLATE_NOOP(
        "ErrorText", "There are no pairs of answers to tune on yet. Choose between two answers, rewrite an answer "
        "rated bad, or rate good and bad answers to the same question."))


# codes whose text depends on what their fields hold
WORDED: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "dpo_no_pairs": _no_pairs,
    "server_field_invalid": _server_field,
    "server_key_unknown": _key_unknown,
    "file_not_text": _not_text,
    "no_base_comparison": _by_reason(NO_BASE_COMPARISON),
    "no_int8": _by_reason(NO_INT8),
    "no_gguf": _by_reason(NO_GGUF),
    "export_differs": _export_differs,
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
            return _tr(text).format(*(_value(n, fields[n], fields) for n in names))
    except (KeyError, IndexError, TypeError, ValueError):
        pass
    return message


def exception_text(exc: BaseException) -> str:
    """A WorkbenchError or a failed read or write in the interface language."""
    if isinstance(exc, OSError):
        exc = os_error(exc)
    return error_text(getattr(exc, "code", None), getattr(exc, "fields", None), str(exc))
