"""A :class:`~kvdata.croissant.facts.FolderDescription` as Croissant 1.1 JSON-LD with the RAI fields, through
MLCommons' ``mlcroissant``: the RAI texts, the file objects and record sets, and the PROV-O statements."""
from __future__ import annotations

from typing import Any, Optional

from kvdata.croissant.facts import (COLUMN_NOTES, CROISSANT_1_1, PARQUET, PROV, RAI_1_0, SPDX_PAGE, Contamination,
                                    FileEntry, FolderDescription, Licenses, Table, VerificationState)


# ----------------------------------------------------------------- the RAI texts
def _top(counts: dict[str, int], n: int = 10) -> str:
    shown = [f"{k} {v}" for k, v in list(counts.items())[:n]]
    rest = list(counts.values())[n:]
    return ", ".join(shown) + (f", and {len(rest)} more ({sum(rest)} rows)" if rest else "")


def verification_text(v: VerificationState) -> str:
    """The verification state in words, with its counts (``rai:dataAnnotationProtocol``)."""
    if v.unknown and v.reverify is None:
        return (f"Execution verification: not looked up for these {v.rows} rows (the corpus is not a local "
                f"folder); each corpus row's `verification` column holds it.")
    text = (f"Execution verification: {v.verified} of {v.rows} rows carry a verification record "
            f"({v.correct} correct, {v.incorrect} incorrect, {v.verified - v.correct - v.incorrect} without a "
            f"verdict)")
    if v.hardware:
        text += f"; hardware: {_top(v.hardware)}"
    text += (". A record is what the upstream evaluation or `kvdata reverify` measured: compile, run, outputs "
             "compared with the PyTorch reference at atol/rtol, times and speedup. Rows without one were never "
             "verified; none is assumed correct.")
    if v.reverify:
        text += (f" Every exported row was also re-verified and marked correct by `kvdata reverify` "
                 f"({v.reverify}).")
    return text


def contamination_text(c: Optional[Contamination], kind: str) -> str:
    """Known benchmark contamination in words (``rai:dataLimitations``)."""
    if c is None:
        return ("Benchmark contamination: unknown. No `kvdata audit-overlap` report accompanies this "
                + ("folder (put one in audit/ to have it described here); " if kind == "build" else "export; ")
                + "rows may overlap KernelBench, TritonBench or ROCmBench items.")
    text = (f"Benchmark contamination ({c.audit}): an overlap audit against "
            f"{', '.join(c.benchmarks) or 'a benchmark'} ({c.bench_items} items; measures: "
            f"{', '.join(c.measures) or 'none'}) flagged {c.flagged_train} of {c.train_rows} training rows, "
            f"overlapping {c.flagged_bench} benchmark items")
    if c.flagged_by_measure:
        text += " (flagged pairs by measure: " + ", ".join(f"{k} {v}" for k, v in c.flagged_by_measure.items()) + ")"
    if c.dropped is not None:
        text += f". This export dropped the {c.dropped} rows it flagged (benchmark_overlap)."
    else:
        text += ". The flagged rows are still in this folder: `kvdata export --audit` drops them."
    return text


def collection_text(d: FolderDescription) -> str:
    """How the rows were collected (``rai:dataCollection``)."""
    p = d.provenance
    if d.kind == "export":
        return (f"Exported from the corpus at {p.derived_from} by `{p.command}`: the rows of the task's configs, "
                f"filtered as listed in the preprocessing protocol, rendered with the task's prompt template.")
    parts = []
    for o in p.origins:
        where = f"repo {o.repo}" if o.repo else "a local tree"
        at = f", commit {o.commit}" if o.commit else ""
        lic = f", license {o.license}" if o.license else ""
        parts.append(f"{o.name} ({o.kind} reader; {where}{at}{lic}): {o.input} input, {o.kept} kept, {o.rejected} "
                     f"rejected, {o.duplicates} duplicates")
    return ("Read by kvdata's source readers, each one upstream layout (released datasets, mined repositories, "
            "library headers and docs); every input record is kept, rejected with a reason code or removed as a "
            "duplicate (accounting.json, rejects.parquet). Sources: " + "; ".join(parts) + ".")


def raw_data_text(d: FolderDescription) -> str:
    """The upstream data per row (``rai:dataCollectionRawData``)."""
    p = d.provenance
    if d.kind == "export":
        return f"The AMDKernelVault corpus at {p.derived_from}; each row keeps its corpus id."
    text = "Rows per upstream repository (provenance.repo): " + (_top(p.repos) or "none recorded")
    if p.pipelines:
        text += "; per generation pipeline: " + _top(p.pipelines)
    if p.generators:
        text += "; per generator: " + _top(p.generators)
    return text + ". Each row's provenance column holds its repo, path, commit and retrieval date."


def license_text(lic: Licenses) -> str:
    text = "Per-row SPDX expressions (rows): " + (_top(lic.rows, 25) or "none")
    if lic.unknown_rows:
        text += f"; {lic.unknown_rows} rows without a known license"
    return text + "."


# ----------------------------------------------------------------- JSON-LD
def _spdx_work(ctx, spdx_id: str):
    import mlcroissant as mlc

    url = None if spdx_id.startswith("LicenseRef-") else SPDX_PAGE.format(spdx_id)
    return mlc.CreativeWork(ctx=ctx, name=spdx_id, url=url)


def _data_type(arrow_type):
    """The Croissant data type of an atomic Arrow type."""
    import mlcroissant as mlc
    import pyarrow as pa

    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return mlc.DataType.TEXT
    if pa.types.is_boolean(arrow_type):
        return mlc.DataType.BOOL
    for check, name in ((pa.types.is_int8, "INT8"), (pa.types.is_int16, "INT16"), (pa.types.is_int32, "INT32"),
                        (pa.types.is_int64, "INT64"), (pa.types.is_uint8, "UINT8"), (pa.types.is_uint16, "UINT16"),
                        (pa.types.is_uint32, "UINT32"), (pa.types.is_uint64, "UINT64"),
                        (pa.types.is_float16, "FLOAT16"), (pa.types.is_float32, "FLOAT32"),
                        (pa.types.is_float64, "FLOAT64")):
        if check(arrow_type):
            return getattr(mlc.DataType, name)
    if pa.types.is_timestamp(arrow_type):
        return mlc.DataType.DATETIME
    if pa.types.is_date(arrow_type):
        return mlc.DataType.DATE
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return mlc.DataType.TEXT
    raise ValueError(f"no Croissant data type for Arrow type {arrow_type}")


def _fields(ctx, file_set: str, parent_id: str, column: str, json_path: Optional[str], arrow_field,
            in_list: bool = False) -> Any:
    """The Croissant field of one Arrow field: atomic types read directly, structs as sub-fields (each read
    through a JSON path into the column), lists as ``isArray`` fields (a list of structs: its sub-fields, each
    an array over the list's items)."""
    import mlcroissant as mlc
    import pyarrow as pa

    fid = f"{parent_id}/{arrow_field.name}"
    t = arrow_field.type
    description = COLUMN_NOTES.get(arrow_field.name) if json_path is None else None

    def source():
        return mlc.Source(ctx=ctx, file_set=file_set, extract=mlc.Extract(ctx=ctx, column=column),
                          transforms=[mlc.Transform(ctx=ctx, json_path=json_path)] if json_path else [])

    if pa.types.is_struct(t):
        subs = [_fields(ctx, file_set, fid, column, f"{json_path}.{sub.name}" if json_path else sub.name, sub,
                        in_list) for sub in t]
        return mlc.Field(ctx=ctx, id=fid, name=arrow_field.name, description=description, sub_fields=subs)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        if json_path is not None:
            raise ValueError(f"{fid}: a list inside a struct has no Croissant reading here")
        item = t.value_type
        if pa.types.is_struct(item):
            subs = [_fields(ctx, file_set, fid, column, sub.name, sub, True) for sub in item]
            return mlc.Field(ctx=ctx, id=fid, name=arrow_field.name, description=description, is_array=True,
                             sub_fields=subs)
        return mlc.Field(ctx=ctx, id=fid, name=arrow_field.name, description=description, is_array=True,
                         data_types=[_data_type(item)], source=source())
    return mlc.Field(ctx=ctx, id=fid, name=arrow_field.name, description=description,
                     data_types=[_data_type(t)], source=source())


def _file_object(ctx, entry: FileEntry):
    import mlcroissant as mlc

    return mlc.FileObject(ctx=ctx, id=entry.path, name=entry.path, description=entry.description or None,
                          content_url=entry.path, content_size=f"{entry.size} B", encoding_formats=[entry.encoding],
                          sha256=entry.sha256)


def _record_set(ctx, table: Table):
    import mlcroissant as mlc

    file_set = f"files-{table.name}"
    fields = []
    if table.split_regex:
        fields.append(mlc.Field(
            ctx=ctx, id=f"{table.name}/split", name="split", description="The split, from the file's name.",
            data_types=[mlc.DataType.TEXT],
            source=mlc.Source(ctx=ctx, file_set=file_set, extract=mlc.Extract(ctx=ctx, file_property="fullpath"),
                              transforms=[mlc.Transform(ctx=ctx, regex=table.split_regex)])))
    fields += [_fields(ctx, file_set, table.name, f.name, None, f) for f in table.schema]
    return mlc.RecordSet(ctx=ctx, id=table.name, name=table.name, description=table.description, fields=fields,
                         key=[f"{table.name}/{table.key}"] if table.key else None)


def _context():
    """mlcroissant's Croissant ``@context``, with the 1.1 terms these files use (``isArray``, ``arrayShape``,
    ``containedIn``, as the 1.1 specification's context has them) and PROV-O's prefix."""
    import mlcroissant as mlc

    return mlc.Rdf(context={**mlc.Rdf().context, "arrayShape": "cr:arrayShape", "containedIn": "cr:containedIn",
                            "isArray": "cr:isArray", "prov": PROV})


def _citation(d: FolderDescription) -> str:
    from kvdata import __version__

    key = "amdkernelvault" + ("" if d.kind == "build" else "_" + "".join(ch for ch in d.name.lower()
                                                                          if ch.isalnum()))
    where = d.url if d.url != "." else "a local folder"
    return (f"@misc{{{key},\n  title = {{{{{d.name}}}}},\n  howpublished = {{{where}}},\n"
            f"  year = {{{d.created.year}}},\n  note = {{Built with kvdata {__version__}}}\n}}")


def metadata(d: FolderDescription):
    """The ``mlcroissant.Metadata`` of a description (mlcroissant checks every node as it is made)."""
    import mlcroissant as mlc

    ctx = mlc.Context(conforms_to=CROISSANT_1_1, rdf=_context())
    distribution = [_file_object(ctx, e) for t in d.tables for e in t.files]
    distribution += [mlc.FileSet(ctx=ctx, id=f"files-{t.name}", name=f"files-{t.name}",
                                 description=f"The parquet files of {t.name}.", encoding_formats=[PARQUET],
                                 includes=[t.include]) for t in d.tables]
    distribution += [_file_object(ctx, e) for e in d.files]
    v = d.verification
    tools = list(v.tools)
    if v.reverify:
        tools.append("kvdata reverify")
    collection_types = ["Secondary Data analysis"]
    if any(t.name == "qa" for t in d.tables):
        collection_types.append("Document analysis")
    return mlc.Metadata(
        ctx=ctx, name=d.name, description=d.description, url=d.url,
        conforms_to=[CROISSANT_1_1, RAI_1_0], cite_as=_citation(d), date_created=d.created,
        date_published=d.created, version=d.version, keywords=list(d.keywords),
        in_language=["en"], license=[_spdx_work(ctx, i) for i in d.licenses.ids] or None,
        distribution=distribution, record_sets=[_record_set(ctx, t) for t in d.tables],
        data_collection=collection_text(d), data_collection_type=collection_types,
        data_collection_raw_data=raw_data_text(d),
        data_preprocessing_protocol=list(d.provenance.steps),
        data_annotation_protocol=[verification_text(v)],
        machine_annotation_tools=tools or None,
        data_limitations=[contamination_text(d.contamination, d.kind),
                          "Code rows are not guaranteed to compile or be correct unless their verification record "
                          "says so; speedups are specific to the recorded hardware and toolchain."],
        data_biases=[f"Composition: {_top(d.composition)} "
                     + ("rows per config" if d.kind == "build" else "rows per split")
                     + "; the corpus holds only what its upstream sources publish (AMD's releases, mined public "
                       "repositories, rocBLAS/rocSOLVER docs), so kernel kinds and tasks follow their skew.",
                     license_text(d.licenses)],
        data_use_cases=["Training and evaluating language models that write or optimise GPU kernels (HIP, Triton) "
                        "from PyTorch references, and answer ROCm library questions.",
                        "Not for benchmark evaluation of a model trained on it without the overlap audit: see the "
                        "limitations."],
        personal_sensitive_information=["No personal data is collected on purpose: rows are source code and "
                                        "library documentation. Code comments and license headers may carry "
                                        "authors' names and e-mail addresses from upstream copyright notices."],
        data_release_maintenance_plan=("Rebuilt from its upstream sources with kvdata; row ids are content hashes "
                                       "that stay the same across rebuilds, and this file is rewritten with "
                                       "every build or export."),
    )


def _provenance_jsonld(d: FolderDescription) -> dict[str, Any]:
    """PROV-O statements (Croissant 1.1's provenance recommendation) that mlcroissant has no classes for."""
    from kvdata import __version__

    p = d.provenance
    derived: list[dict[str, Any]] = []
    if d.kind == "build":
        for o in p.origins:
            entity: dict[str, Any] = {"@type": "prov:Entity", "name": o.name, "description": f"source kind {o.kind}"}
            if o.repo:
                entity["url" if "://" in o.repo else "identifier"] = o.repo
            if o.commit:
                entity["version"] = o.commit
            if o.license:
                entity["license"] = o.license
            derived.append(entity)
    elif p.derived_from:
        derived.append({"@type": "prov:Entity", "name": "AMDKernelVault corpus", "url": p.derived_from})
    activity: dict[str, Any] = {
        "@type": "prov:Activity", "name": p.command, "prov:endedAtTime": d.created.isoformat(),
        "prov:wasAssociatedWith": {"@type": "prov:SoftwareAgent", "name": "kvdata", "version": __version__}}
    if p.used:
        activity["prov:used"] = [{"@type": "prov:Entity", "url": u} for u in p.used]
    out: dict[str, Any] = {"prov:wasGeneratedBy": activity}
    if derived:
        out["prov:wasDerivedFrom"] = derived
    return out


def to_jsonld(d: FolderDescription) -> dict[str, Any]:
    """The JSON-LD of a description: mlcroissant's ``Metadata.to_json()`` plus the PROV-O statements."""
    return {**metadata(d).to_json(), **_provenance_jsonld(d)}
