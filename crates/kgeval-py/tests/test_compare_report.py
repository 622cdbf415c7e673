"""kgeval.compare's report (issue 27 item 6): a dict that prints as the text table, renders
the campaign's LaTeX table and shows in a notebook."""

import kgeval

SCORES = {
    "A": {"q1": 0.9, "q2": 0.8, "q3": 0.7, "q4": 0.9, "q5": 0.8},
    "B": {"q1": 0.5, "q2": 0.4, "q3": 0.6, "q4": 0.3, "q5": 0.5},
    "C&D": {"q1": 0.5, "q2": 0.45, "q3": 0.6, "q4": 0.35, "q5": 0.5},
}


def test_the_report_is_the_json_document():
    report = kgeval.compare(SCORES, metric="ndcg", test="t")
    assert isinstance(report, dict)
    assert report["metrics"][0]["metric"] == "ndcg"


def test_str_is_the_cli_text_table():
    text = str(kgeval.compare(SCORES, metric="ndcg", test="t"))
    assert "ndcg" in text
    for system in SCORES:
        assert system in text


def test_to_latex_is_the_campaign_table_with_significance_marks():
    latex = kgeval.compare(SCORES, metric="ndcg", test="t").to_latex()
    assert latex.startswith("% Written by kgeval")
    assert latex.rstrip().endswith("\\end{document}")
    assert "\\begin{tabular}" in latex and "\\toprule" in latex
    assert "C\\&D" in latex  # names escaped
    assert "\\textbf{" in latex  # the best mean in bold
    assert "paired t test" in latex  # how the marks were decided


def test_repr_html_escapes_the_table():
    html = kgeval.compare(SCORES, metric="ndcg", test="t")._repr_html_()
    assert html.startswith("<pre>") and "C&amp;D" in html
