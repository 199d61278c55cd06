"""The model of a trained run: its weights (final/ or a checkpoint) on the model it started from.

Here rather than in engine/inference because training reads it too: a preference run starts from
another run's model (engine/training/preference.py).
"""

from __future__ import annotations

from workbench.core.errors import WorkbenchError
from workbench.core.trained import TrainedRun
from workbench.engine import families
from workbench.engine.models import adapters, checkpoints, decoder_head, devices, loading, sources

ADAPTER_METHODS = ("lora", "dpo")  # the runs whose weights are an adapter on their base model


def load_run_model(trained: TrainedRun, *, device: str = "cpu", merge: bool = True):
    """``(model, tokenizer)`` of a run in eval mode: final/ or its last checkpoint.

    LoRA runs: the adapter is loaded onto the base model and, with ``merge``, folded into
    it (faster inference, and the form that is exported). A run trained on a quantised
    base is loaded on the full-precision base here.
    """
    devices.select_device(device)
    job = trained.job
    base = sources.resolve_model_source(trained.base_model, allow_pickle=job.allow_pickle)
    wdir = trained.weights_dir
    if not trained.from_checkpoint and trained.method == "full":
        model, tokenizer = loading.load_model_and_tokenizer(wdir, for_training=False, device=device,
                                                      allow_pickle=job.allow_pickle)
    else:
        model = loading.load_model(base, for_training=False, device=device, allow_pickle=job.allow_pickle)
        tok_dir = wdir if any((wdir / f).is_file() for f in loading.TOKENIZER_FILES) else base
        tokenizer = loading.load_tokenizer(tok_dir)
        if job.head and trained.task == "classification":  # the head the run trained, over its labels
            spec = trained.spec
            model = decoder_head.attach(model, list(spec.labels), family=families.model_family(model.config),
                             multi_label=bool(spec.multi_label), pooling=job.head_pooling, depth=job.head_depth,
                             linear_part=job.head_linear)
            if job.head_linear:  # fitted before the adapters trained, kept beside them
                decoder_head.load_linear_part(model, trained.run_dir / decoder_head.LINEAR_FILE)
        if trained.from_checkpoint:
            if trained.method in ADAPTER_METHODS:
                model = adapters.apply_lora(model, families.model_family(model.config), r=job.lora_r, alpha=job.lora_alpha,
                                     dropout=0.0, target_modules=job.lora_target_modules)
            checkpoints.load_weights(model, wdir / "model_state")
        else:
            try:
                model = adapters.load_lora_adapter(model, wdir)
            except Exception as exc:
                raise WorkbenchError(f"The LoRA adapter in {wdir} cannot be loaded onto {base} "
                                     f"({type(exc).__name__}: {str(exc)[:200]}).", code="lora_adapter_unloadable",
                                     path=str(wdir), base=str(base),
                                     detail=f"{type(exc).__name__}: {str(exc)[:200]}") from exc
    if merge:
        model = adapters.merge_lora(model)
    if decoder_head.is_head(model):
        decoder_head.use_text_alone(tokenizer)
    model.eval()
    for p in model.parameters():
        p.stop_gradient = True
    # the weights must give what the model that saved them gave, or nothing is answered with them
    checkpoints.check_probe(model, trained.probe, f"run '{trained.run_id}' ({trained.source})")
    return model, tokenizer
