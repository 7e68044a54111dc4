"""PyTorch peer of cckit's TransformerCaptioner training step (src/models/transformer.ts), for
bench/train.ts: the same pre-LN encoder-decoder (visual + geometry projections, segment and
position embeddings, fused QKV self-attention, cross-attention with a fused KV projection, ReLU
FFN, dropout on every residual branch and after the FFN's ReLU, untied output layer), the same
masked mean token cross-entropy and Adam. Times forward + backward + Adam on a fixed synthetic
batch and prints one JSON line.

Run: /usr/bin/python3 bench/torch_step.py --preset tiny --threads 1 [--steps 10 --warmup 3]
     /usr/bin/python3 bench/torch_step.py --preset tiny --threads 1 --serve
       (bench/train.ts drives it: one JSON line when ready, then one step per "step" line read from
       stdin, answered by {"ms", "cpu_ms"}; so its steps interleave with tfjs's on the same machine)
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

PRESETS = {
    "tiny": dict(enc=1, dec=2, d=128, heads=4, ffn=256, dropout=0.1),
    "small": dict(enc=2, dec=2, d=256, heads=4, ffn=1024, dropout=0.1),
}
NEG_INF = -1e9


class Attention(nn.Module):
    """Multi-head attention; self-attention projects Q, K, V at once, cross-attention Q then K, V."""

    def __init__(self, d, heads, cross):
        super().__init__()
        self.heads, self.cross = heads, cross
        if cross:
            self.q = nn.Linear(d, d)
            self.kv = nn.Linear(d, 2 * d)
        else:
            self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)

    def forward(self, x, memory, bias):
        B, T, d = x.shape
        if self.cross:
            q = self.q(x)
            k, v = self.kv(memory).chunk(2, dim=-1)
        else:
            q, k, v = self.qkv(x).chunk(3, dim=-1)
        h, dh = self.heads, d // self.heads

        def split(t):
            return t.reshape(B, t.shape[1], h, dh).transpose(1, 2)

        scores = (split(q) * (1 / math.sqrt(dh))) @ split(k).transpose(-1, -2) + bias
        out = (scores.softmax(-1) @ split(v)).transpose(1, 2).reshape(B, T, d)
        return self.o(out)


class Block(nn.Module):
    def __init__(self, d, heads, ffn, dropout, decoder):
        super().__init__()
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.self_attn = Attention(d, heads, cross=False)
        self.decoder = decoder
        if decoder:
            self.ln2 = nn.LayerNorm(d, eps=1e-5)
            self.cross_attn = Attention(d, heads, cross=True)
        self.ln3 = nn.LayerNorm(d, eps=1e-5)
        self.ff1 = nn.Linear(d, ffn)
        self.ff2 = nn.Linear(ffn, d)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, self_bias, memory=None, cross_bias=None):
        a = self.ln1(x)
        x = x + self.drop(self.self_attn(a, a, self_bias))
        if self.decoder:
            x = x + self.drop(self.cross_attn(self.ln2(x), memory, cross_bias))
        f = self.ff2(self.drop(F.relu(self.ff1(self.ln3(x)))))
        return x + self.drop(f)


class Captioner(nn.Module):
    def __init__(self, vocab, visual_dim, geometry_dim, max_positions, enc, dec, d, heads, ffn, dropout):
        super().__init__()
        self.d = d
        self.visual_proj = nn.Linear(visual_dim, d)
        self.geometry_proj = nn.Linear(geometry_dim, d)
        self.word_emb = nn.Parameter(torch.randn(vocab, d) / math.sqrt(d))
        self.enc_pos = nn.Parameter(torch.randn(max_positions, d) * 0.02)
        self.dec_pos = nn.Parameter(torch.randn(max_positions, d) * 0.02)
        self.segment_emb = nn.Parameter(torch.randn(3, d) * 0.02)
        self.enc = nn.ModuleList(Block(d, heads, ffn, dropout, False) for _ in range(enc))
        self.enc_ln = nn.LayerNorm(d, eps=1e-5)
        self.dec = nn.ModuleList(Block(d, heads, ffn, dropout, True) for _ in range(dec))
        self.dec_ln = nn.LayerNorm(d, eps=1e-5)
        self.out = nn.Linear(d, vocab)
        self.drop = nn.Dropout(dropout)

    def forward(self, visual, geometry, visual_mask, tokens):
        B, T = tokens.shape
        # encoder: visual positions only (no tags or text in this benchmark)
        x = self.visual_proj(visual) + self.geometry_proj(geometry) + self.segment_emb[0]
        x = self.drop(x)
        enc_bias = ((1 - visual_mask) * NEG_INF).reshape(B, 1, 1, -1)
        for block in self.enc:
            x = block(x, enc_bias)
        memory = self.enc_ln(x)
        # decoder
        y = F.embedding(tokens, self.word_emb) * math.sqrt(self.d) + self.dec_pos[:T]
        y = self.drop(y)
        causal = torch.ones(T, T).tril()
        self_bias = ((1 - causal) * NEG_INF).reshape(1, 1, T, T)
        for block in self.dec:
            y = block(y, self_bias, memory, enc_bias)
        return self.out(self.dec_ln(y))


def caption_loss(logits, targets):
    """Mean token cross-entropy over non-PAD (id 0) targets."""
    V = logits.shape[-1]
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=0)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="tiny", choices=sorted(PRESETS))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--tokens", type=int, default=20)
    p.add_argument("--positions", type=int, default=17)
    p.add_argument("--visual-dim", type=int, default=128)
    p.add_argument("--geometry-dim", type=int, default=5)
    p.add_argument("--vocab", type=int, default=2000)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--serve", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(1)
    model = Captioner(a.vocab, a.visual_dim, a.geometry_dim, 64, **PRESETS[a.preset])
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.999), eps=1e-8)
    g = torch.Generator().manual_seed(2)
    B, T, N = a.batch, a.tokens, a.positions
    visual = torch.rand(B, N, a.visual_dim, generator=g)
    geometry = torch.rand(B, N, a.geometry_dim, generator=g)
    visual_mask = torch.ones(B, N)
    # BOS + caption in, caption + EOS out; ids ≥ 5 are words (0–4 are special)
    words = torch.randint(5, a.vocab, (B, T), generator=g)
    tokens_in = torch.cat([torch.ones(B, 1, dtype=torch.long), words[:, :-1]], dim=1)
    targets = torch.cat([words[:, :-1], torch.full((B, 1), 2, dtype=torch.long)], dim=1)

    def step():
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = caption_loss(model(visual, geometry, visual_mask, tokens_in), targets)
        loss.backward()
        opt.step()
        value = loss.item()
        return (time.perf_counter() - t0) * 1000, value

    def ready_line():
        return {
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "preset": a.preset,
            "params": sum(p.numel() for p in model.parameters()),
        }
    if a.serve:
        print(json.dumps(ready_line()), flush=True)
        for line in sys.stdin:
            if line.strip() != "step":
                break
            cpu0 = time.process_time()
            ms, _ = step()
            print(json.dumps({"ms": ms, "cpu_ms": (time.process_time() - cpu0) * 1000}), flush=True)
        return
    for _ in range(a.warmup):
        step()
    times = [step()[0] for _ in range(a.steps)]
    print(json.dumps({
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "preset": a.preset,
        "params": sum(p.numel() for p in model.parameters()),
        "ms": statistics.median(times),
        "times": [round(t, 2) for t in times],
    }))


if __name__ == "__main__":
    sys.exit(main())
