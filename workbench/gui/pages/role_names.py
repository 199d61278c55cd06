"""The names of the column roles (text, label, question, answer...) as every page shows them.

The strings keep the DataPage translation context, where they first appeared.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def role_name(role: str) -> str:
    names = {
        "text": QCoreApplication.translate("DataPage", "Text"),
        "label": QCoreApplication.translate("DataPage", "Label"),
        "instruction": QCoreApplication.translate("DataPage", "Instruction / question"),
        "input": QCoreApplication.translate("DataPage", "Extra input"),
        "output": QCoreApplication.translate("DataPage", "Answer / output"),
    }
    return names.get(role, role)
