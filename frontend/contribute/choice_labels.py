"""Short option labels for the benchmark forms' selects: a select cannot wrap its text,
so a label such as "moderated: a maintainer accepts each submission" is clipped on a
phone (issue 28). The option shows its short name; the field's help text keeps what
each choice means, in the model's own words."""

from __future__ import annotations

from collections.abc import Mapping

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from estimation.core.registry import ESTIMATORS

# The model's label of each choice is "name: meaning"; those without a colon get a name.
SHORT_NAMES = {
    "complete": "complete datasets only",
    "worst": "missing ranks last",
    "loo_kl": "LOO weights (log loss)",
    "loo_brier": "LOO weights (Brier score)",
    "loo_tv": "LOO weights (total variation)",
}
# Longer than this and an option may not fit a phone's select (about 297 px of text).
SHORT_ENOUGH = 32


def shorten_choices(fields: Mapping[str, forms.Field]) -> None:
    """Give each long-labelled choice field short option labels and list the meanings in
    its help text (``name: meaning; …``)."""
    for field in fields.values():
        choices = getattr(field, "choices", None)
        if not isinstance(field, forms.TypedChoiceField | forms.ChoiceField) or not choices:
            continue
        labels = [(value, str(label)) for value, label in choices]
        if all(len(label) <= SHORT_ENOUGH for _, label in labels):
            continue
        short, meanings = [], []
        for value, label in labels:
            name, _, meaning = label.partition(": ")
            if not meaning:  # "analyse datasets every included algorithm has"
                name, meaning = SHORT_NAMES.get(str(value), label), label
            short.append((value, name))
            if value != "" and name != meaning:
                meanings.append(f"{name}: {meaning}")
        field.choices = short
        help_text = str(field.help_text or "").rstrip()
        field.help_text = " ".join(filter(None, [help_text, "; ".join(meanings) + "."]))


def estimator_help(lead: str) -> SafeString:
    """The default-estimator field's help: ``lead``, then a list of each estimator's
    short name with the first sentence of what it means for a reader (the registry's
    ``meaning``, the one definition), each name said once."""
    items = format_html_join(
        "",
        "<li>{}: {}.</li>",
        ((e.short_label, e.meaning.split(". ")[0].rstrip(".")) for e in ESTIMATORS),
    )
    return format_html('{}<ul class="help-list">{}</ul>', lead, items)
