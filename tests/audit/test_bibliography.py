"""The audit cites: a full bibliography entry per source paper, used by every claim."""

from __future__ import annotations

import pytest

from qifldp import audit as A
from qifldp.errors import InputTypeError, ParameterError

# Read off each text's first page (title) and, where the text has no author block, from the
# sources named in each entry's note (the QIF paper's own references [9] and [31]).
EXPECTED = {
    "qif": (
        "Beyond Epsilon: A Principled QIF Framework for Local Differential Privacy",
        "Gonze",
        2026,
        5,
        "CSF",
    ),
    "pckv": (
        "PCKV: Locally Differentially Private Correlated Key-Value Data Collection with "
        "Optimized Utility",
        "Gu",
        2020,
        5,
        "USENIX Security",
    ),
    "rr3": (
        "Randomized Response Mechanisms for Differential Privacy Data Analysis: Bounds and "
        "Applications",
        "Ma",
        2021,
        2,
        "arXiv",
    ),
    "risks": (
        "On the Risks of Collecting Multidimensional Data Under Local Differential Privacy",
        "Arcolezi",
        2023,
        4,
        "VLDB",
    ),
}


#: The later oracles' papers (title, first author, year, number of authors, venue), from
#: their published versions: no text file in the project's papers.
ORACLE_PAPERS = {
    "rappor": (
        "RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal Response",
        "Erlingsson",
        2014,
        3,
        "CCS",
    ),
    "longitudinal": (
        "Improving the utility of locally differentially private protocols for longitudinal "
        "and multidimensional frequency estimates",
        "Arcolezi",
        2022,
        4,
        "Digital Communications and Networks",
    ),
    "dbitflip": ("Collecting Telemetry Data Privately", "Ding", 2017, 3, "NeurIPS"),
    "hr": (
        "Hadamard Response: Estimating Distributions Privately, Efficiently, and with Little "
        "Communication",
        "Acharya",
        2019,
        3,
        "AISTATS",
    ),
    "apple": ("Learning with Privacy at Scale", "Team", 2017, 1, "Apple Machine Learning"),
    "hm": ("Marginal Release Under Local Differential Privacy", "Cormode", 2018, 3, "SIGMOD"),
    "wang": (
        "Locally Differentially Private Protocols for Frequency Estimation",
        "Wang",
        2017,
        4,
        "USENIX Security",
    ),
}


def test_every_oracle_paper_has_an_entry_without_a_text_file():
    for key, (title, first, year, n_authors, venue) in ORACLE_PAPERS.items():
        ref = A.reference(key)
        assert ref.title == title and ref.year == year and venue in ref.venue
        assert len(ref.authors) == n_authors and ref.authors[0].split()[-1] == first
        assert ref.text == "" and ref.note
    assert A.BIBLIOGRAPHY["apple"].cite == "Apple Differential Privacy Team (Apple ML Journal 2017)"
    assert A.BIBLIOGRAPHY["rappor"].cite == "Erlingsson et al. (CCS 2014)"


def test_every_source_paper_has_a_full_entry():
    assert set(A.BIBLIOGRAPHY) == set(EXPECTED) | set(ORACLE_PAPERS)
    for key, (title, first, year, n_authors, venue) in EXPECTED.items():
        ref = A.reference(key)
        assert ref.key == key and ref.title == title and ref.year == year
        assert len(ref.authors) == n_authors and ref.authors[0].split()[-1] == first
        assert venue in ref.venue and ref.text.endswith(".txt")
        assert ref.full.startswith(ref.authors[0]) and ref.title in ref.full
        assert str(year) in ref.cite and first in ref.cite


def test_files_match_the_papers_readme():
    # /work/shared/papers/README.md: 000 PCKV, 001 three-answer RR, 002 QIF, 003 risks
    files = {k: r.text[:3] for k, r in A.BIBLIOGRAPHY.items() if k in EXPECTED}
    assert files == {"pckv": "000", "rr3": "001", "qif": "002", "risks": "003"}


def test_citations_read_as_author_year():
    assert A.BIBLIOGRAPHY["qif"].cite == "Gonze et al. (CSF 2026)"
    assert A.BIBLIOGRAPHY["rr3"].cite == "Ma and Wang (arXiv 2021)"
    assert A.BIBLIOGRAPHY["risks"].cite == "Arcolezi et al. (PVLDB 2023)"


def test_every_claim_cites_its_paper():
    for c in A.CLAIMS:
        assert c.references, c.key
        for key in c.references:
            assert A.BIBLIOGRAPHY[key].cite in c.source
        assert c.key.split(".")[0] in set(EXPECTED) | set(ORACLE_PAPERS)
        assert c.references[0] == c.key.split(".")[0]
    # one claim draws on two papers
    assert A.get_claim("pckv.ue_epsilon").references == ("pckv", "risks")


def test_reference_lookup_errors():
    with pytest.raises(ParameterError, match="unknown reference 'x'"):
        A.reference("x")
    with pytest.raises(InputTypeError, match="key must be a string"):
        A.reference(2)


def test_registration_rules():
    with pytest.raises(ParameterError, match="registered twice"):
        A.claim("qif.eq25", "Again.", paper="qif", where="Eq. 25")
    with pytest.raises(ParameterError, match="ending with a period"):
        A.claim("t.none", "No period", paper="qif", where="x")
    with pytest.raises(ParameterError, match="unknown reference"):
        A.claim("t.none", "A claim.", paper="nope", where="x")(lambda: (A.CONFIRMED, ""))
