"""``params.yaml``: the runs, model profiles, analysis plan and evaluator versions, validated.

One schema covers the whole file. Loading it reports every problem at once, one line each,
naming the key: unknown keys (with a "did you mean" for near misses), wrong types (a string is
never silently read as a number), out-of-range values, and references that do not resolve — a
run's model, scenario and schedule, the evaluator versions. The ``params`` stage, ``assay check``
and ``assay run add`` all go through :func:`load_params` / :func:`validate_params`, so a bad file
stops ``dvc repro`` before DVC deletes any stage output.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, get_args, get_origin

from pydantic import (
    BaseModel,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from assay.core.errors import InputError
from assay.core.records import NAME_PATTERN, Frozen, ScenarioName, StructureVersion
from assay.evidence.plan import AnalysisPlan
from assay.fixtures.declared import SCENARIO_FILE, declared_names, name_problem
from assay.providers.base import ModelProfile
from assay.science.extract import VERSIONS
from assay.science.schedule import ScheduleName

RunId = str

MAX_REPEATS = 20
"""More repeats than this is almost certainly a typo (cells grow as subjects × arms × repeats)."""

Name = Annotated[str, Field(pattern=f"^{NAME_PATTERN}$")]
Repeats = Annotated[StrictInt, Field(ge=1, le=MAX_REPEATS)]


class RunSpec(Frozen):
    """One row of ``params.yaml: runs``."""

    model: Name
    scenario: Name
    repeats: Repeats = 2
    schedule: ScheduleName | None = None
    """``None``: the scenario's default (see ``assay.science.schedule.default_schedule``)."""
    allow_paid: StrictBool = False
    authorization: str | None = None
    plan_ref: str | None = None
    authorization_token: str | None = None
    """Written by ``assay authorize`` with the run's ledger; names the ledger that may spend."""
    reproduces: Name | None = None
    """A reproduction check: this run sends again ``sample`` of the cells of the run named here
    (same model, scenario, repeats and schedule, so the same plan apart from the run id and
    the cells), and the reports say how many of its answers are byte-identical to that run's."""
    sample: int | None = Field(default=None, ge=1)
    """With ``reproduces``: how many of that run's cells to send again (a fixed, declared
    sample spread over its subjects; all when ``None``). With ``qualifies``: how many of the
    scenario's cells the qualification sends (:data:`QUALIFICATION_SAMPLE` when ``None``)."""
    qualifies: StrictBool = False
    """A qualification run of its hosted route (``assay.paid.qualification``): a small paid run
    (``sample`` cells) on the route, authorized and sent like any paid run, whose ledger must
    show every call answered by the declared model and provider before any other run on the
    route can be authorized. It needs no qualification itself."""


QUALIFICATION_SAMPLE = 12
"""The cells a qualification run sends unless its ``sample`` says otherwise: the seed's Haiku
route was qualified by 12 calls."""


class Alternative(Frozen):
    """An effect a design is judged against: how often a complete subject favours each arm."""

    favour: StrictFloat = Field(ge=0, le=1)
    """P(a complete subject favours the reference arm)."""
    against: StrictFloat = Field(ge=0, le=1)
    """P(a complete subject favours the other arm); ties take the rest."""

    @model_validator(mode="after")
    def _at_most_certain(self) -> Alternative:
        if self.favour + self.against > 1 + 1e-12:  # rounding alone (0.7 + 0.3 and the like)
            raise ValueError(
                f"favour + against is {self.favour + self.against:g}: a complete subject favours "
                "one arm, the other or neither, so they sum to 1 at most"
            )
        return self


class PowerAssumptions(Frozen):
    """What ``assay plan show`` and ``assay power`` assume to state a design's power (not part of
    any plan: an assumption about answers not yet seen, never a property of the run)."""

    completeness: StrictFloat = Field(default=0.75, ge=0, le=1)
    """P(a subject is complete: every repeat of both compared arms scored) at
    ``completeness_repeats`` repeats. 0.75: the real coder's 9 of 12 subjects on v1."""
    completeness_repeats: Repeats = 2
    alternatives: dict[Name, Alternative] = Field(
        default_factory=lambda: {
            "strong": Alternative(favour=0.8, against=0.0),
            "moderate": Alternative(favour=0.6, against=0.1),
        },
        min_length=1,
    )
    """The effects a design's power is stated at, by name."""

    def completeness_at(self, repeats: int) -> float:
        """P(complete) for a design of ``repeats`` repeats: ``completeness`` read as
        ``2 * completeness_repeats`` cells each scored independently at the rate that gives it,
        so a subject of ``repeats`` repeats (``2 * repeats`` cells) is complete with probability
        ``completeness ** (repeats / completeness_repeats)``."""
        return float(self.completeness ** (repeats / self.completeness_repeats))


class Evaluators(Frozen):
    """The versions the evaluator stages score with now (not part of the plan)."""

    structure: StrictInt = 7
    extraction: StrictInt = 2
    structure_runs: dict[str, StrictInt] = Field(default_factory=dict)
    """Per-run rescoring (``assay rescore RUN --structure-version V``): the version that run's
    reports score with instead of ``structure``. Every version is scored side by side anyway."""

    def structure_version(self, run_id: str) -> int:
        """The structural evaluator version ``run_id``'s reports score with."""
        return self.structure_runs.get(run_id, self.structure)


class CostRuns(Frozen):
    """Which runs the duplication-cost report pools (``report.cost_runs``). Every filter given
    must match; simulated runs are left out unless ``include_simulated`` is true."""

    runs: tuple[str, ...] | None = None
    scenarios: tuple[str, ...] | None = None
    models: tuple[str, ...] | None = None
    """Model profile names (keys of ``models``)."""
    include_simulated: StrictBool = False


class ReportOptions(Frozen):
    metrics_reference_arm: str | None = None
    """The arm every other arm is compared with in the metrics report (default: the scenario's
    reference arm, ``clean`` or ``mess-00``)."""
    cost_runs: CostRuns = CostRuns()
    adjudications: str = "adjudications.yaml"
    """Human decisions on ``ambiguous`` cells (see ``assay adjudicate``); reported beside the
    preregistered result, never instead of it."""


SCHEDULER_ADDRESS = re.compile(r"^(tcp|tls)://[A-Za-z0-9.\-\[\]:]+:[0-9]{1,5}$")


class Compute(Frozen):
    """Where the correctness, measure and self-test stages run their per-cell work (not part of
    any plan: where work runs does not change what it means; see docs/scale.md)."""

    scheduler: str = "local"
    """``local`` (this machine) or a Dask scheduler address, ``tcp://host:8786``."""
    sandbox_slots_per_worker: StrictInt = Field(default=2, ge=1, le=64)
    """Sandboxed cells one Dask worker runs at once (a cell mostly waits on its engine)."""
    measure_cells_per_task: StrictInt = Field(default=16, ge=1, le=10_000)
    """Outputs measured per Dask task in the measure stage (one tool start-up per task)."""
    connect_timeout_seconds: float = Field(default=10.0, gt=0, le=300)

    @field_validator("scheduler")
    @classmethod
    def _local_or_address(cls, value: str) -> str:
        if value != "local" and not SCHEDULER_ADDRESS.match(value):
            raise ValueError(
                f"{value!r} is neither 'local' nor a scheduler address tcp://host:port"
            )
        return value

    @property
    def distributed(self) -> bool:
        return self.scheduler != "local"


class Sending(Frozen):
    """How the ``send`` stage sends the runs' provider calls (not part of any plan: each run
    still sends one call at a time, in its plan's order; see ``assay.pipeline.send``)."""

    parallel_runs_per_key: StrictInt = Field(default=3, ge=1, le=32)
    """Runs sending at the same time through one provider key (runs whose profiles name the
    same ``api_key_env`` share it; the simulated and replayed stand-ins share one)."""
    parallel_local_runs: StrictInt = Field(default=1, ge=1, le=32)
    """Local runs (``provider: local``) generating at the same time, each with its own server
    and ``local.threads`` cores: one keeps a model on all the machine's cores at a time,
    rather than two servers fighting over them."""


class Problem(Frozen):
    """One thing wrong with params.yaml: the dotted key and what is wrong with it."""

    key: str
    message: str

    def line(self, path: Path | str) -> str:
        return f"{path}: {self.key}: {self.message}" if self.key else f"{path}: {self.message}"


class _ReferenceProblems(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(f"{p.key}: {p.message}" for p in problems))
        self.problems = problems


class Params(Frozen):
    fixtures: str = "fixtures"
    ledger_root: str = "ledger"
    inspect_logs: str = "inspect-logs"
    """The folder of the Inspect logs ``provider: inspect-log`` profiles read (relative to the
    repository): a dependency of every plan (DVC takes no dependency from an optional key of a
    run), so a changed log re-plans its run. The ``params`` stage creates it when missing."""
    scenarios: tuple[Name, ...] = ()
    subject_subset: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """Quick runs only: a scenario realised with just these subject ids (all when absent)."""
    analysis: AnalysisPlan = AnalysisPlan()
    evaluators: Evaluators = Evaluators()
    report: ReportOptions = ReportOptions()
    compute: Compute = Compute()
    sending: Sending = Sending()
    power: PowerAssumptions = PowerAssumptions()
    models: dict[Name, ModelProfile]
    runs: dict[Name, RunSpec]

    @model_validator(mode="after")
    def _references_resolve(self) -> Params:
        problems = reference_problems(self)
        if problems:
            raise _ReferenceProblems(problems)
        return self

    def structure_version(self, run_id: str) -> int:
        """The structural evaluator version ``run_id``'s reports score with."""
        return self.evaluators.structure_version(run_id)

    def run(self, run_id: str) -> RunSpec:
        try:
            return self.runs[run_id]
        except KeyError:
            raise ParamsError(
                f"params.yaml: no run {run_id!r} (declared: {', '.join(self.runs)})"
            ) from None

    def profile_for(self, run_id: str) -> ModelProfile:
        return self.models[self.run(run_id).model]


class ParamsError(InputError):
    """params.yaml is missing, unreadable or invalid. ``str()`` is one line per problem, each
    naming the file and the key."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.lines = problems or (message,)


SCENARIOS = get_args(ScenarioName)
EVALUATOR_VERSIONS = get_args(StructureVersion)
EXTRACTION_VERSIONS = tuple(sorted(VERSIONS))


def _known(values: Iterable[object]) -> str:
    return ", ".join(str(v) for v in sorted(values, key=str))


def _suggest(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _declared_problems(params: Params) -> tuple[tuple[str, ...], list[Problem]]:
    """The scenarios declared under the file's own ``fixtures:`` root (relative to the current
    directory: the pipeline runs from the repository's root), and a problem for each folder
    whose name no scenario may have (a built-in's, or one that is no valid name)."""
    root = Path(params.fixtures)
    declared, problems = [], []
    for name in declared_names(root):
        problem = name_problem(name)
        if problem is None:
            declared.append(name)
        else:
            problems.append(
                Problem(
                    key="fixtures",
                    message=f"{root / name / SCENARIO_FILE}: {problem}",
                )
            )
    return tuple(declared), problems


def _reproduction_problems(params: Params) -> list[Problem]:
    """A reproduction names another declared run of the same model, scenario, repeats and
    schedule (so that its cells are that run's cells); ``sample`` goes with ``reproduces``."""
    problems = []
    for run_id, run in params.runs.items():
        key = f"runs.{run_id}"
        if run.reproduces is None:
            if run.sample is not None and not run.qualifies:
                problems.append(
                    Problem(
                        key=f"{key}.sample",
                        message="sample is the size of a reproduction or a qualification: set "
                        "reproduces: RUN or qualifies: true too",
                    )
                )
            continue
        if run.qualifies:
            problems.append(
                Problem(
                    key=f"{key}.qualifies",
                    message="a reproduction check cannot qualify a route: remove qualifies, or "
                    "reproduces and declare the qualification on its own",
                )
            )
            continue
        original = params.runs.get(run.reproduces)
        if original is None or run.reproduces == run_id:
            problems.append(
                Problem(
                    key=f"{key}.reproduces",
                    message=f"no other run {run.reproduces!r}"
                    f"{_suggest(run.reproduces, params.runs)} (declared: {_known(params.runs)})",
                )
            )
            continue
        differing = [
            field
            for field in ("model", "scenario", "repeats", "schedule")
            if getattr(run, field) != getattr(original, field)
        ]
        if differing:
            problems.append(
                Problem(
                    key=f"{key}.reproduces",
                    message=f"a reproduction of {run.reproduces!r} needs its "
                    f"{', '.join(differing)} (set them as that run has them)",
                )
            )
    return problems


def _inspect_log_problems(params: Params) -> list[Problem]:
    """An inspect-log profile's log is a file inside ``inspect_logs`` (the folder every plan
    depends on), and its runs ask one prompt per cell (not a chain)."""
    problems = []
    folder = PurePosixPath(params.inspect_logs)
    if folder.is_absolute() or ".." in folder.parts or folder.parts[:1] in (("data",), ()):
        problems.append(
            Problem(
                key="inspect_logs",
                message=f"{params.inspect_logs!r} is not a folder of the repository outside "
                "data/ (a relative path without '..')",
            )
        )
    for name, profile in params.models.items():
        if profile.log is None:
            continue
        log = PurePosixPath(profile.log)
        if (
            log.is_absolute()
            or ".." in log.parts
            or log.parent.parts[: len(folder.parts)] != (folder.parts)
        ):
            problems.append(
                Problem(
                    key=f"models.{name}.log",
                    message=f"{profile.log!r} is not inside the inspect_logs folder "
                    f"{params.inspect_logs!r} (every plan depends on that folder, so a log "
                    "elsewhere could change without its run being planned again)",
                )
            )
        elif not Path(profile.log).is_file():
            problems.append(
                Problem(key=f"models.{name}.log", message=f"{profile.log}: no such file")
            )
    for run_id, run in params.runs.items():
        used = params.models.get(run.model)
        if used is not None and used.log is not None and run.scenario == "chain":
            problems.append(
                Problem(
                    key=f"runs.{run_id}.scenario",
                    message="a chain cell's later prompts are built by assay from the model's "
                    "earlier answers, so no Inspect log can answer it",
                )
            )
    return problems


def _qualification_problems(params: Params) -> list[Problem]:
    """A qualification run is on a route that costs money: a free one needs none."""
    problems = []
    for run_id, run in params.runs.items():
        profile = params.models.get(run.model)
        if run.qualifies and profile is not None and profile.is_free:
            problems.append(
                Problem(
                    key=f"runs.{run_id}.qualifies",
                    message=f"model {run.model!r} is free: a free route needs no qualification "
                    "(remove qualifies)",
                )
            )
    return problems


def reference_problems(params: Params) -> list[Problem]:
    """Names that must resolve: each run's model, scenario and schedule; evaluator versions. A
    scenario is a built-in one or one declared in the fixtures root (``assay new-scenario``)."""
    declared, problems = _declared_problems(params)
    scenarios = (*SCENARIOS, *declared)
    for name in params.scenarios:
        if name not in scenarios:
            problems.append(
                Problem(
                    key="scenarios",
                    message=f"unknown scenario {name!r}{_suggest(name, scenarios)} "
                    f"(known: {_known(scenarios)})",
                )
            )
    for run_id, run in params.runs.items():
        if run.model not in params.models:
            problems.append(
                Problem(
                    key=f"runs.{run_id}.model",
                    message=f"unknown model profile {run.model!r}"
                    f"{_suggest(run.model, params.models)} (declared under models: "
                    f"{_known(params.models)})",
                )
            )
        if run.scenario not in scenarios:
            problems.append(
                Problem(
                    key=f"runs.{run_id}.scenario",
                    message=f"unknown scenario {run.scenario!r}"
                    f"{_suggest(run.scenario, scenarios)} (known: {_known(scenarios)})",
                )
            )
        elif run.scenario not in params.scenarios:
            problems.append(
                Problem(
                    key=f"runs.{run_id}.scenario",
                    message=f"{run.scenario!r} is not listed under 'scenarios' "
                    f"(add it there: the subjects and render stages build only listed scenarios)",
                )
            )
    problems += _reproduction_problems(params)
    problems += _inspect_log_problems(params)
    problems += _qualification_problems(params)
    for scenario, subject_ids in params.subject_subset.items():
        if scenario not in params.scenarios:
            problems.append(
                Problem(
                    key=f"subject_subset.{scenario}",
                    message=f"{scenario!r} is not listed under 'scenarios'",
                )
            )
        if not subject_ids or len(set(subject_ids)) != len(subject_ids):
            problems.append(
                Problem(
                    key=f"subject_subset.{scenario}",
                    message="list one or more distinct subject ids",
                )
            )
    for run_id in params.evaluators.structure_runs:
        if run_id not in params.runs:
            problems.append(
                Problem(key="evaluators.structure_runs", message=f"unknown run {run_id!r}")
            )
    chosen = params.report.cost_runs
    for field, known in (
        ("runs", params.runs),
        ("scenarios", params.scenarios),
        ("models", params.models),
    ):
        unknown = sorted(set(getattr(chosen, field) or ()) - set(known))
        if unknown:
            problems.append(
                Problem(
                    key=f"report.cost_runs.{field}",
                    message=f"unknown {', '.join(map(repr, unknown))} (declared: {_known(known)})",
                )
            )
    for key, number in (
        ("evaluators.extraction", params.evaluators.extraction),
        ("analysis.extraction", params.analysis.extraction),
    ):
        if number not in EXTRACTION_VERSIONS:
            problems.append(
                Problem(
                    key=key,
                    message=f"unknown extraction version {number} "
                    f"(known: {_known(EXTRACTION_VERSIONS)})",
                )
            )
    for key, version in (
        ("evaluators.structure", params.evaluators.structure),
        ("analysis.structure_evaluator", params.analysis.structure_evaluator),
        *(
            (f"evaluators.structure_runs.{run_id}", number)
            for run_id, number in params.evaluators.structure_runs.items()
        ),
    ):
        if version not in EVALUATOR_VERSIONS:
            problems.append(
                Problem(
                    key=key,
                    message=f"unknown structural evaluator version {version} "
                    f"(known: {_known(EVALUATOR_VERSIONS)})",
                )
            )
    return problems


def _field_model(annotation: Any) -> Any:
    """The model or mapping type behind an annotation (``X | None`` → ``X``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (dict, Mapping):
        return annotation
    for arg in get_args(annotation):
        found = _field_model(arg)
        if found is not None:
            return found
    return None


def _fields_at(loc: tuple[str | int, ...]) -> list[str]:
    """The field names allowed in the model that ``loc`` (the unknown key's parent) points to."""
    node: Any = Params
    for part in loc:
        if isinstance(node, type) and issubclass(node, BaseModel):
            field = node.model_fields.get(str(part))
            if field is None:
                return []
            node = _field_model(field.annotation)
        elif get_origin(node) in (dict, Mapping):
            node = _field_model(get_args(node)[1])
        else:
            return []
        if node is None:
            return []
    if isinstance(node, type) and issubclass(node, BaseModel):
        return list(node.model_fields)
    return []


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _validation_problems(error: ValidationError) -> list[Problem]:
    problems: list[Problem] = []
    for item in error.errors():
        loc = tuple(item["loc"])
        key = ".".join(str(p) for p in loc)
        kind = item["type"]
        if kind == "value_error" and isinstance(
            (item.get("ctx") or {}).get("error"), _ReferenceProblems
        ):
            problems.extend(item["ctx"]["error"].problems)
        elif kind == "value_error":  # a validator's own sentence says what to change
            problems.append(Problem(key=key, message=str((item.get("ctx") or {}).get("error"))))
        elif kind == "extra_forbidden":
            allowed = _fields_at(loc[:-1])
            hint = _suggest(str(loc[-1]), allowed) or (
                f" (allowed: {_known(allowed)})" if allowed else ""
            )
            problems.append(Problem(key=key, message=f"unknown key{hint}"))
        elif kind == "missing":
            problems.append(Problem(key=key, message="required key is missing"))
        elif kind == "string_pattern_mismatch" and loc and loc[-1] == "[key]":
            name = item["input"]
            what = "an empty name" if name == "" else f"name {name!r}"
            problems.append(
                Problem(
                    key=".".join(str(p) for p in loc[:-2]),
                    message=f"{what}: use only letters, digits, '_' and '-' "
                    "(a name becomes a DVC stage name and a parameter path)",
                )
            )
        elif kind == "literal_error":
            expected = re.findall(r"'([^']*)'", str((item.get("ctx") or {}).get("expected", "")))
            value = item["input"]
            hint = _suggest(value, expected) if isinstance(value, str) else ""
            problems.append(
                Problem(
                    key=key,
                    message=f"unknown value {_shown(value)}{hint} (known: {_known(expected)})",
                )
            )
        elif kind == "string_pattern_mismatch":
            pattern = str((item.get("ctx") or {}).get("pattern", ""))
            what = (
                "a sha256 (64 lowercase hexadecimal digits)"
                if "0-9a-f" in pattern
                else "a name (letters, digits, '_', '-')"
            )
            problems.append(Problem(key=key, message=f"{_shown(item['input'])} is not {what}"))
        else:
            problems.append(
                Problem(key=key, message=f"{item['msg']} (got {_shown(item['input'])})")
            )
    return problems


def validate_params(raw: Any, *, path: Path | str = "params.yaml") -> Params:
    """The validated parameters, or a ``ParamsError`` listing every problem, one line each."""
    if not isinstance(raw, dict):
        what = "empty" if raw is None else f"a {type(raw).__name__}, not a mapping of sections"
        raise ParamsError(f"{path}: the file is {what}")
    for section in ("models", "runs"):
        if isinstance(raw.get(section), dict) and None in raw[section]:
            raise ParamsError(f"{path}: {section}: an entry has an empty name")
    try:
        return Params.model_validate(raw)
    except ValidationError as exc:
        lines = tuple(problem.line(path) for problem in _validation_problems(exc))
        raise ParamsError("\n".join(lines), lines) from None


def parse_yaml(text: str, *, path: Path | str = "params.yaml") -> Any:
    """Parse YAML text, a syntax error becoming one ``ParamsError`` line with its position."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ParamsError(f"{path}: invalid YAML: {where}{exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ParamsError(f"{path}: invalid YAML: {exc}") from None


def read_params_text(path: Path) -> str:
    """The file's text; a missing or unreadable file is one ``ParamsError`` line."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ParamsError(f"{path}: not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ParamsError(f"{path}: cannot read: {exc}") from None


def read_params_yaml(path: Path | str = "params.yaml") -> Any:
    """The parsed (not yet validated) file; an unreadable file or bad YAML is one line."""
    path = Path(path)
    return parse_yaml(read_params_text(path), path=path)


def load_params(path: Path | str = "params.yaml") -> Params:
    return validate_params(read_params_yaml(path), path=path)


def read_placement(path: Path | str = "params.yaml") -> Compute:
    """``compute`` alone, read from the file itself. Where a stage's work runs is undeclared on
    purpose (moving to a cluster re-runs nothing), so the params stage's copy of it may be older
    than the file: ``dvc repro --single-item`` of a cluster stage runs no params stage."""
    path = Path(path)
    raw = read_params_yaml(path)
    section = raw.get("compute") if isinstance(raw, dict) else None
    try:
        return Compute.model_validate(section or {})
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in ("compute", *problem["loc"]))
        raise ParamsError(f"{path}: {where}: {problem['msg']}") from None


def valid_name(name: str) -> bool:
    return re.fullmatch(NAME_PATTERN, name) is not None
