"""The papers of the audit: who wrote them, where and when they appeared.

The four source papers (``qif``, ``pckv``, ``rr3``, ``risks``), whose texts are in the
project's ``/work/shared/papers``, and the papers of the later frequency oracles
(``rappor``, ``longitudinal``, ``dbitflip``, ``hr``, ``apple``, ``hm``, ``wang``), whose statements
the audit quotes from their published versions (no text file: ``text`` is empty and
``note`` says where each statement was read).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..validation import check_name

__all__ = ["Reference", "BIBLIOGRAPHY", "reference"]

_T = TypeVar("_T")


@dataclass(frozen=True)
class Reference:
    """One source paper.

    Attributes
    ----------
    key : str
        Short key used by the claims (``"qif"``, ``"pckv"``, ``"rr3"``, ``"risks"``).
    authors : tuple of str
        Full names, in the paper's order.
    title : str
    venue : str
        Conference, journal or archive.
    year : int
    identifier : str
        arXiv id, volume and pages, or ``""``.
    text : str
        The file of the paper's text the audit was written against
        (``/work/shared/papers`` in the project's checkout); empty for the oracles'
        papers, read in their published versions.
    note : str
        How the entry was established where the text alone does not settle it.

    Examples
    --------
    >>> BIBLIOGRAPHY["pckv"].cite
    'Gu et al. (USENIX Security 2020)'
    """

    key: str
    authors: tuple[str, ...]
    title: str
    venue: str
    year: int
    identifier: str
    short_venue: str
    text: str
    note: str = ""

    @property
    def cite(self) -> str:
        """Author-year citation, e.g. ``'Gonze et al. (CSF 2026)'``.

        Examples
        --------
        >>> BIBLIOGRAPHY["rr3"].cite
        'Ma and Wang (arXiv 2021)'
        """
        surnames = [a.split()[-1] for a in self.authors]
        if len(surnames) == 1:  # an institutional author, named whole
            return f"{self.authors[0]} ({self.short_venue} {self.year})"
        who = f"{surnames[0]} and {surnames[1]}" if len(surnames) == 2 else f"{surnames[0]} et al."
        return f"{who} ({self.short_venue} {self.year})"

    @property
    def full(self) -> str:
        """The complete reference in one line.

        Examples
        --------
        >>> BIBLIOGRAPHY["rr3"].full.split(". ")[0]
        'Fei Ma and Ping Wang'
        """
        names = ", ".join(self.authors[:-1]) + " and " + self.authors[-1]
        ident = f", {self.identifier}" if self.identifier else ""
        return f"{names}. {self.title}. {self.venue}, {self.year}{ident}."


#: The source papers by key; ``text`` names the file of the paper's text each claim was read from.
BIBLIOGRAPHY: dict[str, Reference] = {
    "qif": Reference(
        key="qif",
        authors=(
            "Ramon G. Gonze",
            "Natasha Fernandes",
            "Héber H. Arcolezi",
            "Catuscia Palamidessi",
            "Nataliia Bielova",
        ),
        title="Beyond Epsilon: A Principled QIF Framework for Local Differential Privacy",
        venue="39th IEEE Computer Security Foundations Symposium (CSF)",
        year=2026,
        identifier="arXiv:2605.26465",
        short_venue="CSF",
        text="002_a9f9700a98e16885.txt",
        note=(
            "The title block of the text lists four authors (Gonze, Fernandes, Palamidessi, "
            "Bielova); the paper's own reference [31] to its full version and its author-"
            "contribution statement name five, with H. H. Arcolezi third, as given here. CSF "
            "2026 per the full version's file name in [31]; arXiv id from the text's header."
        ),
    ),
    "pckv": Reference(
        key="pckv",
        authors=("Xiaolan Gu", "Ming Li", "Yueqiang Cheng", "Li Xiong", "Yang Cao"),
        title=(
            "PCKV: Locally Differentially Private Correlated Key-Value Data Collection with "
            "Optimized Utility"
        ),
        venue="29th USENIX Security Symposium (USENIX Security 20)",
        year=2020,
        identifier="",
        short_venue="USENIX Security",
        text="000_5eaa4ce4a3620db6.txt",
        note="The text opens with the title; it carries no author block.",
    ),
    "rr3": Reference(
        key="rr3",
        authors=("Fei Ma", "Ping Wang"),
        title=(
            "Randomized Response Mechanisms for Differential Privacy Data Analysis: Bounds "
            "and Applications"
        ),
        venue="arXiv preprint",
        year=2021,
        identifier="arXiv:2112.07397",
        short_venue="arXiv",
        text="001_b2891de2a5e5cc5b.txt",
        note=(
            "The text has neither title nor authors (it starts inside the introduction and "
            "ends after Sec. II's preliminaries); identified by its content: three-elements "
            "randomized response (RR3), weighted bipartite graphs, Holohan et al. as [31]."
        ),
    ),
    "risks": Reference(
        key="risks",
        authors=(
            "Héber H. Arcolezi",
            "Sébastien Gambs",
            "Jean-François Couchot",
            "Catuscia Palamidessi",
        ),
        title="On the Risks of Collecting Multidimensional Data Under Local Differential Privacy",
        venue="Proceedings of the VLDB Endowment (PVLDB)",
        year=2023,
        identifier="vol. 16, no. 5, pp. 1126-1139",
        short_venue="PVLDB",
        text="003_30d340390ed9fcff.txt",
        note=(
            "The text opens with the title only; authors, volume and pages as cited by the "
            "QIF paper (its reference [9])."
        ),
    ),
    "rappor": Reference(
        key="rappor",
        authors=("Úlfar Erlingsson", "Vasyl Pihur", "Aleksandra Korolova"),
        title="RAPPOR: Randomized Aggregatable Privacy-Preserving Ordinal Response",
        venue="ACM SIGSAC Conference on Computer and Communications Security (CCS)",
        year=2014,
        identifier="arXiv:1407.6981",
        short_venue="CCS",
        text="",
        note=(
            "Theorem 1 (Sec. 3.1, eps_inf of the permanent randomized response) and Theorem "
            "2 (Sec. 3.2, eps_1 of the instantaneous one, with q* and p*) as the paper states "
            "them; the text is not in the project's papers."
        ),
    ),
    "longitudinal": Reference(
        key="longitudinal",
        authors=("Héber H. Arcolezi", "Jean-François Couchot", "Bechara Al Bouna", "Xiaokui Xiao"),
        title=(
            "Improving the utility of locally differentially private protocols for "
            "longitudinal and multidimensional frequency estimates"
        ),
        venue="Digital Communications and Networks",
        year=2022,
        identifier="arXiv:2111.04636, doi:10.1016/j.dcan.2022.07.003",
        short_venue="DCN",
        text="",
        note=(
            "The longitudinal protocols L-GRR, L-SUE, L-OUE, L-OSUE, L-SOUE (Sec. 4) and their "
            "variance as the authors' library multi-freq-ldpy implements them "
            "(long_freq_est/L_GRR.py, Variance_LONG_PURE.py); the text is not in the "
            "project's papers."
        ),
    ),
    "dbitflip": Reference(
        key="dbitflip",
        authors=("Bolin Ding", "Janardhan Kulkarni", "Sergey Yekhanin"),
        title="Collecting Telemetry Data Privately",
        venue="Advances in Neural Information Processing Systems 30 (NeurIPS)",
        year=2017,
        identifier="pp. 3571-3580",
        short_venue="NeurIPS",
        text="",
        note="dBitFlip's privacy statement (histogram estimation); not in the project's papers.",
    ),
    "hr": Reference(
        key="hr",
        authors=("Jayadev Acharya", "Ziteng Sun", "Huanyu Zhang"),
        title=(
            "Hadamard Response: Estimating Distributions Privately, Efficiently, and with "
            "Little Communication"
        ),
        venue="22nd International Conference on Artificial Intelligence and Statistics (AISTATS)",
        year=2019,
        identifier="PMLR 89",
        short_venue="AISTATS",
        text="",
        note="Sec. 4's scheme with codeword sets of size K/2; not in the project's papers.",
    ),
    "apple": Reference(
        key="apple",
        authors=("Apple Differential Privacy Team",),
        title="Learning with Privacy at Scale",
        venue="Apple Machine Learning Journal, vol. 1, issue 8",
        year=2017,
        identifier="",
        short_venue="Apple ML Journal",
        text="",
        note=(
            "The Count Mean Sketch and Hadamard Count Mean Sketch clients, their privacy and "
            "the server's sketch estimator; the text is not in the project's papers."
        ),
    ),
    "wang": Reference(
        key="wang",
        authors=("Tianhao Wang", "Jeremiah Blocki", "Ninghui Li", "Somesh Jha"),
        title="Locally Differentially Private Protocols for Frequency Estimation",
        venue="26th USENIX Security Symposium",
        year=2017,
        identifier="pp. 729-745",
        short_venue="USENIX Security",
        text="",
        note=(
            "Histogram encoding (Sec. 4.2): SHE's Laplace(2/eps) noise, its eps and variance, "
            "and THE's approximate variance Var*, as the paper states them; the text is not "
            "in the project's papers."
        ),
    ),
    "hm": Reference(
        key="hm",
        authors=("Graham Cormode", "Tejas Kulkarni", "Divesh Srivastava"),
        title="Marginal Release Under Local Differential Privacy",
        venue="ACM SIGMOD International Conference on Management of Data",
        year=2018,
        identifier="",
        short_venue="SIGMOD",
        text="",
        note=(
            "The Hadamard mechanism (one coefficient of the Hadamard transform, randomized "
            "response), as pure-ldp implements it; not in the project's papers."
        ),
    ),
}


def reference(key: str) -> Reference:
    """The bibliography entry with this key.

    Parameters
    ----------
    key : str
        One of ``"qif"``, ``"pckv"``, ``"rr3"``, ``"risks"``.

    Returns
    -------
    Reference

    Raises
    ------
    InputTypeError
        ``key`` is not a string.
    ParameterError
        No entry has this key.

    Examples
    --------
    >>> reference("qif").year
    2026
    """
    return _lookup(BIBLIOGRAPHY, key, "reference")


def _lookup(table: Mapping[str, _T], key: Any, what: str) -> _T:
    """``table[key]``, or the clear error of a registry lookup (shared with the claim registry)."""
    return table[check_name("key", key, table, what)]
