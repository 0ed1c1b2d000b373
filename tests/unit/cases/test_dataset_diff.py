"""Dataset diffs: added, removed, changed, and which fields changed by kind."""

from __future__ import annotations

from tests.unit.cases._make import case

from assay.cases import diff_datasets, diff_json, diff_lines


def test_added_removed_and_changed_cases_with_their_field_kinds() -> None:
    old = [case("A", "How long?"), case("B", "Gift wrap?"), case("C", "Shipping?")]
    new = [
        case("A", "How long do I have?"),
        case("B", "Gift wrap?", expected_fact="other", rationale="new reason"),
        case("D", "New?"),
    ]
    diff = diff_datasets(old, new)
    assert diff.added == ("D",) and diff.removed == ("C",) and diff.unchanged == 0
    a, b = diff.changed
    assert (a.case_id, a.kinds, a.label_changed) == ("A", ("wording",), False)
    assert (b.case_id, b.kinds) == ("B", ("label", "wording"))
    assert [f.field for f in b.fields] == ["expected_fact", "rationale"]
    assert [c.case_id for c in diff.label_changes] == ["B"]


def test_identical_datasets_and_defaults_written_out() -> None:
    old = [case("A", "q")]
    assert diff_datasets(old, [case("A", "q", synthetic=False, split="dev")]).identical


def test_text_and_json_forms() -> None:
    diff = diff_datasets([case("A", "q")], [case("A", "q", expected_fact="g")])
    lines = diff_lines(diff)
    assert lines[0] == "0 added, 0 removed, 1 changed (1 with label changes), 0 unchanged"
    assert lines[1:] == ["~ A [label]", '    expected_fact (label): "fact" -> "g"']
    data = diff_json(diff)
    assert data["changed"][0]["fields"] == [
        {"field": "expected_fact", "kind": "label", "old": "fact", "new": "g"}
    ]
