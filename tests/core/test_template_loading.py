"""Templates are read with libyaml's parser: the same documents as PyYAML's own, and the
same clear message for a file that is not YAML."""

import pytest
import yaml

from workbench.core import templates


def test_the_fast_loader_reads_every_shipped_template_as_the_pure_one_does():
    assert templates.YAML_LOADER is yaml.CSafeLoader  # the wheels ship libyaml; without it the start-up is slower
    files = sorted(templates.builtin_templates_dir().glob(f"*/{templates.SPEC_FILE}"))
    assert len(files) >= 5
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert yaml.load(text, Loader=templates.YAML_LOADER) == yaml.load(text, Loader=yaml.SafeLoader), path


def test_a_template_file_that_is_not_yaml_is_named(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / templates.SPEC_FILE).write_text("id: broken\nname: [unclosed\n", encoding="utf-8")
    with pytest.raises(templates.TemplateError, match=r"(?s)template.yaml is not valid YAML: .*line 2.*Fix the file and try again"):
        templates.load_template(folder)
