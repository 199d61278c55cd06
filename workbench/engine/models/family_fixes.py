"""Corrections to PaddleFormers 1.0.0 model classes, applied to every model Workbench loads.

Gemma 3 (``gemma3_text``): the model computes one rotary table from ``rope_theta`` (1e6)
and hands it to every layer, but the sliding-window layers were trained with
``rope_local_base_freq`` (1e4), as Hugging Face and llama.cpp apply it. Unfixed, a
pretrained Gemma 3 sees wrong positions in five layers of six and its output drifts
from the reference. :func:`apply_family_fixes` gives each sliding-window decoder layer a
rotary table of its own and swaps the layer's class for a subclass that uses it. The
table is a non-persistable buffer, so saved weights, LoRA adapters and checkpoints are
unchanged; the layer object stays the same, so LoRA wrapping, merging and
``paddle.jit.save`` see the fixed forward.

The key/value cache the model makes for itself keeps only the last ``sliding_window - 1``
positions of a sliding layer, while the mask it builds for the next step covers every
position, so cached generation goes wrong once the text is longer than the window; the
fixed model starts a plain cache (every position kept) instead.

The MLP's tanh-approximated GELU is written out as its formula, because paddle2onnx 2.1.0
converts ``gelu(approximate=True)`` into the exact GELU (5e-4 apart; the ONNX export's
parity check failed).

The sliding-window mask of PaddleFormers 1.0.0 is right (position ``i`` sees ``j`` when
``0 <= i - j < sliding_window``, as in Hugging Face and llama.cpp) but is built by a Python
loop of one tensor write per query position, and its causal mask branches in Python on
the cache length, which is a tensor in a traced graph (``paddle.jit.save`` of the cached
generation step fails). The fixed model builds both masks from two index ranges.

Gemma 3's attention: PaddleFormers' eager attention repeats each key/value head for its query
heads (``repeat_kv``, a copy) and multiplies transposed views, which Paddle's CPU matmul runs
as one small product per batch row and head: a decoding step of 16 rows took 18 ms a layer
(86 ms at 300 cached positions). Gemma 3 270M has one key/value head for four query heads;
multiplying each key/value head once with its group of query heads stacked as rows gives the
same values in 0.15 ms (0.43), and a training step's attention at 8 x 448 tokens in 126 ms
against 189. The fixed Gemma 3 layers use that function (``GROUPED_ATTENTION``).

Every family: the RMS norms square with ``x.pow(2)``, whose CPU kernel (a generic power)
took 4.5 ms forward and 9.5 ms forward and backward on 512 x 640 values where
``paddle.square`` takes 0.03 and 0.16; Gemma 3 has six norms a layer, and a Gemma 3 270M
LoRA step of 4 x 128 tokens went from 6.2 s to 4.5 s (one thread, the cut vocabulary). The norms' classes are swapped for
subclasses that square (the same values; weights and state dicts are unchanged).
"""

from __future__ import annotations

from types import SimpleNamespace


def apply_family_fixes(model, family: str):
    """Fix ``model`` (a freshly loaded causal LM of ``family``) in place; returns it."""
    if family == "gemma3":
        fix_gemma3(model)
    square_norms(model)
    return model


def square_norms(model) -> None:
    """Swap every RMS norm of ``model`` for a subclass that squares (see above)."""
    for layer in model.sublayers(include_self=True):
        swap = _squaring_class(type(layer))
        if swap is not None:
            layer.__class__ = swap


_NORMS: dict = {}


def _squaring_class(cls):
    """The squaring subclass of an RMS norm class, or None for any other class."""
    if cls in _NORMS:
        return _NORMS[cls]
    import paddle
    from paddleformers.nn.norm import RMSNorm
    from paddleformers.transformers.gemma3_text.modeling import Gemma3RMSNorm

    swap = None
    if issubclass(cls, Gemma3RMSNorm) and not getattr(cls, "squares", False):
        # Gemma3RMSNormPipe (the final norm) too: only _norm changes
        def _norm(self, x):
            with paddle.amp.auto_cast(False):
                return x * paddle.rsqrt(paddle.square(x).mean(-1, keepdim=True) + self.eps)

        def forward(self, x):
            # Gemma3RMSNorm's forward, called by name: the Pipe class's super() call recursed
            # once traced by dy2static (it resolves super() from the instance's class)
            if isinstance(x, tuple):
                x = x[0]
            return Gemma3RMSNorm.forward(self, x)

        swap = type(f"Squaring{cls.__name__}", (cls,), {"_norm": _norm, "forward": forward, "squares": True})
    elif cls is RMSNorm:
        def forward(self, hidden_states):
            if self.config.get("fuse_rms_norm", False):
                return RMSNorm.forward(self, hidden_states)
            with paddle.amp.auto_cast(False):
                variance = paddle.square(hidden_states.astype("float32")).mean(-1, keepdim=True)
                hidden_states = paddle.rsqrt(variance + self.variance_epsilon) * hidden_states
            if self.weight.dtype in [paddle.float16, paddle.bfloat16]:
                hidden_states = paddle.cast(hidden_states, self.weight.dtype)
            return hidden_states * self.weight

        swap = type("SquaringRMSNorm", (cls,), {"forward": forward, "squares": True})
    _NORMS[cls] = swap
    return swap


def _local_rope_config(config):
    """What Gemma3RotaryEmbedding reads, with the local base and no scaling (local layers
    never scale their rope, in Hugging Face's Gemma 3 either)."""
    return SimpleNamespace(
        max_position_embeddings=config.max_position_embeddings,
        rope_parameters={"rope_type": "default", "rope_theta": float(config.rope_local_base_freq)},
        head_dim=getattr(config, "head_dim", None),
        hidden_size=config.hidden_size,
        num_attention_heads=config.num_attention_heads,
    )


GROUPED_ATTENTION = "workbench_grouped"


def grouped_attention(module, query, key, value, attention_mask=None, dropout: float = 0.0, sink=None,
                      scaling=None, is_causal=None, **kwargs):
    """Eager attention ([B, H, Lq, D] queries, [B, Hkv, Lk, D] keys and values) with each
    key/value head multiplied once by its query heads stacked as rows; what PaddleFormers'
    ``eager_attention_forward`` returns, without copying keys and values per query head."""
    import paddle
    from paddleformers.nn.attention.eager_attention import eager_attention_forward

    if sink is not None or (attention_mask is None and kwargs.get("attn_mask_startend_row_indices") is not None):
        return eager_attention_forward(module, query, key, value, attention_mask=attention_mask, dropout=dropout,
                                       sink=sink, scaling=scaling, is_causal=is_causal, **kwargs)
    heads, dim, kv_heads = query.shape[1], query.shape[3], key.shape[1]
    # query head h reads key/value head h // (heads / kv_heads), repeat_kv's order; 0 and -1 in
    # the shapes keep the batch and the lengths dynamic in a traced graph
    scores = paddle.matmul(query.reshape([0, kv_heads, -1, dim]), key, transpose_y=True)
    scores = scores.reshape([0, heads, -1, 0]) * scaling
    if attention_mask is not None:
        scores = scores + attention_mask[:, :, :, : key.shape[-2]]
    weights = paddle.nn.functional.softmax(scores, axis=-1, dtype=paddle.float32).astype(query.dtype)
    weights = paddle.nn.functional.dropout(weights, p=dropout, training=module.training)
    out = paddle.matmul(weights.reshape([0, kv_heads, -1, 0]), value)
    out = out.reshape([0, heads, -1, dim]).transpose([0, 2, 1, 3])
    return out.reshape([0, 0, heads * dim]), weights


def _use_grouped_attention(layer) -> None:
    from paddleformers.nn.attention.interface import ALL_ATTENTION_FUNCTIONS

    ALL_ATTENTION_FUNCTIONS[GROUPED_ATTENTION] = grouped_attention  # this process's table, not the library's
    if getattr(layer, "attn_implementation", None) == "eager":
        layer.attn_implementation = GROUPED_ATTENTION


def fix_gemma3(model) -> None:
    from paddleformers.transformers.activations import PaddleGELUTanh
    from paddleformers.transformers.gemma3_text.modeling import (
        Gemma3Attention,
        Gemma3DecoderLayer,
        Gemma3MLP,
        Gemma3RotaryEmbedding,
        Gemma3TextModel,
    )

    classes = _gemma3_classes()
    for layer in model.sublayers(include_self=True):
        if isinstance(layer, Gemma3MLP) and type(layer.act_fn) is PaddleGELUTanh:
            layer.act_fn = classes["gelu_tanh"]()
        if isinstance(layer, Gemma3Attention):
            _use_grouped_attention(layer)
        if type(layer) is Gemma3TextModel:
            layer.__class__ = classes["model"]
        elif type(layer) is Gemma3DecoderLayer and layer.attention_type == "sliding_attention":
            layer.local_rotary_emb = Gemma3RotaryEmbedding(_local_rope_config(layer.config))
            layer.__class__ = classes["sliding"]


def is_gemma3_fixed(model) -> bool:
    classes = _gemma3_classes()
    return any(type(layer) is classes["model"] for layer in model.sublayers(include_self=True))


_CLASSES: dict = {}


def _gemma3_classes() -> dict:
    if _CLASSES:
        return _CLASSES
    import paddle
    from paddleformers.transformers.cache_utils import DynamicCache
    from paddleformers.transformers.gemma3_text.modeling import Gemma3DecoderLayer, Gemma3TextModel

    class Gemma3SlidingDecoderLayer(Gemma3DecoderLayer):
        """A sliding-window layer with the local rotary table (``local_rotary_emb``)."""

        def forward(self, hidden_states, position_embeddings, attention_mask=None, past_key_values=None,
                    position_ids=None, output_attentions=False, use_cache=False,
                    attn_mask_startend_row_indices=None, **kwargs):
            # the explicit base-class call (not super()) keeps dy2static's source transform happy
            local = self.local_rotary_emb(hidden_states, position_ids)
            return Gemma3DecoderLayer.forward(
                self, hidden_states, local, attention_mask=attention_mask, past_key_values=past_key_values,
                position_ids=position_ids, output_attentions=output_attentions, use_cache=use_cache,
                attn_mask_startend_row_indices=attn_mask_startend_row_indices, **kwargs)

    class Gemma3FixedTextModel(Gemma3TextModel):
        def forward(self, input_ids=None, attention_mask=None, attn_mask_startend_row_indices=None,
                    position_ids=None, past_key_values=None, inputs_embeds=None, use_cache=None,
                    output_attentions=None, output_hidden_states=None, return_dict=None, **kwargs):
            use_cache = use_cache if use_cache is not None else self.config.use_cache
            if use_cache and past_key_values is None:
                # a plain cache: the model's own keeps only the last window of a sliding layer but
                # masks as if it kept everything, so cached steps past the window go wrong
                past_key_values = DynamicCache()
            return Gemma3TextModel.forward(
                self, input_ids=input_ids, attention_mask=attention_mask,
                attn_mask_startend_row_indices=attn_mask_startend_row_indices, position_ids=position_ids,
                past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache,
                output_attentions=output_attentions, output_hidden_states=output_hidden_states,
                return_dict=return_dict, **kwargs)

        @staticmethod
        def _prepare_decoder_attention_mask(attention_mask, input_shape, past_key_values_length, dtype,
                                            sliding_window_size=None, **kwargs):
            if kwargs.get("or_mask_function") is not None or (attention_mask is not None
                                                              and attention_mask.ndim != 2):
                return Gemma3TextModel._prepare_decoder_attention_mask(
                    attention_mask, input_shape, past_key_values_length, dtype,
                    sliding_window_size=sliding_window_size, **kwargs)
            return _causal_mask(attention_mask, input_shape, past_key_values_length, dtype,
                                int(sliding_window_size) if sliding_window_size else None)

    class GELUTanh(paddle.nn.Layer):
        """``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` written out: paddle2onnx 2.1.0
        turns ``gelu(approximate=True)`` into the exact (erf) GELU, 5e-4 away."""

        def forward(self, x):
            return 0.5 * x * (1.0 + paddle.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))

    _CLASSES.update(model=Gemma3FixedTextModel, sliding=Gemma3SlidingDecoderLayer, gelu_tanh=GELUTanh)
    return _CLASSES


def _causal_mask(attention_mask, input_shape, past_length, dtype, window: int | None):
    """Additive mask [B, 1, T, P+T]: 0 where query ``i`` (at ``P + i``) may see key ``j``
    (``0 <= P + i - j``, ``< window`` when there is one, and ``attention_mask[b, j]``), the
    dtype's minimum elsewhere. No Python branch on the cache length ``P``, which is a tensor
    in a traced graph."""
    import paddle

    batch, length = input_shape
    q = paddle.arange(length, dtype="int64").unsqueeze(1) + past_length  # [T, 1]
    k = paddle.arange(length + past_length, dtype="int64").unsqueeze(0)  # [1, P+T]
    seen = k <= q
    if window is not None:
        seen = seen & (q - k < window)
    seen = seen.unsqueeze(0).unsqueeze(0)
    if attention_mask is not None:
        if attention_mask.ndim != 2:
            raise ValueError("a sliding-window mask needs a 2-D attention_mask [batch, length]")
        seen = seen & attention_mask.astype("bool").unsqueeze(1).unsqueeze(1)
    else:
        seen = seen.expand([batch, 1, length, length + past_length])
    zero = paddle.zeros([], dtype=dtype)
    low = paddle.full([], paddle.finfo(dtype).min, dtype=dtype)
    return paddle.where(seen, zero, low)
