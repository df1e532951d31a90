"""ResNet-18 and a transformer encoder block, each on PyTorch and on hip.tensor.nn with the same
parameter names, so one PyTorch state_dict loads into both (`load_state_dict`).

ResNet-18 uses torchvision's module names (conv1, bn1, layer1.0.conv1, ..., layer2.0.downsample.0,
fc) and its initialisation (Kaiming-normal convolutions), defined here because torchvision may be
missing. The encoder block is PyTorch's TransformerEncoderLayer (batch_first, post-norm, GELU by
erf, no dropout in eval) with its names (self_attn.in_proj_weight, self_attn.out_proj, linear1,
linear2, norm1, norm2), attention written as matmul, softmax, matmul on both sides.

hip.tensor's forms run as written (`fused=False`: one operator per PyTorch operator) or with
hip.tensor's fusions (`fuse()`): the eval BatchNorms folded into their convolutions
(ht.nn.utils.fuse_conv_bn_eval), ReLU and the residual add in the pass after each convolution's
gemm; in the block the residual of each sub-layer as hipBLASLt's C matrix, the attention scale in
the softmax. Used by benchmarks/gpu/bench_tensor_networks.py and
tests/tensor/test_tensor_networks_gpu.py.
"""
from __future__ import annotations

import numpy as np

# -- PyTorch ---------------------------------------------------------------------------------------------------


def torch_resnet18(torch, num_classes: int = 1000):
    """torchvision's resnet18() architecture and initialisation (no pretrained weights)."""
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = self._layer(64, 1)
            self.layer2 = self._layer(128, 2)
            self.layer3 = self._layer(256, 2)
            self.layer4 = self._layer(512, 2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

        def _layer(self, planes, stride):
            down = None
            if stride != 1 or self.inplanes != planes:
                down = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))
            blocks = [BasicBlock(self.inplanes, planes, stride, down), BasicBlock(planes, planes)]
            self.inplanes = planes
            return nn.Sequential(*blocks)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    return ResNet()


def randomize_batch_norms(torch, model, seed: int = 0):
    """Give every BatchNorm2d non-trivial running statistics and affine parameters (a fresh model's
    are mean 0, var 1, weight 1, bias 0: folding them would test nothing)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(0.1 * torch.randn(c, generator=g))
                m.running_var.copy_(0.5 + torch.rand(c, generator=g))
                m.weight.copy_(0.5 + torch.rand(c, generator=g))
                m.bias.copy_(0.1 * torch.randn(c, generator=g))
    return model


def torch_encoder_block(torch, d_model: int = 1024, nhead: int = 16, dim_ff: int = 4096, eps: float = 1e-5):
    """TransformerEncoderLayer(d_model, nhead, dim_ff, dropout=0, activation='gelu', batch_first=True)
    in eval, its attention as q @ k^T * d^-0.5, softmax, @ v."""
    nn = torch.nn
    tf = torch.nn.functional

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model))
            self.in_proj_bias = nn.Parameter(torch.empty(3 * d_model))
            self.out_proj = nn.Linear(d_model, d_model)
            nn.init.xavier_uniform_(self.in_proj_weight)
            nn.init.uniform_(self.in_proj_bias, -0.02, 0.02)

        def forward(self, x):
            b, s, e = x.shape
            h = nhead
            qkv = tf.linear(x, self.in_proj_weight, self.in_proj_bias)
            q, k, v = qkv.view(b, s, 3, h, e // h).permute(2, 0, 3, 1, 4)
            scores = torch.matmul(q, k.transpose(-2, -1)) * (e // h) ** -0.5
            o = torch.matmul(torch.softmax(scores, dim=-1), v)
            return self.out_proj(o.transpose(1, 2).reshape(b, s, e))

    class EncoderBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.self_attn = SelfAttention()
            self.linear1 = nn.Linear(d_model, dim_ff)
            self.linear2 = nn.Linear(dim_ff, d_model)
            self.norm1 = nn.LayerNorm(d_model, eps=eps)
            self.norm2 = nn.LayerNorm(d_model, eps=eps)

        def forward(self, x):
            x = self.norm1(x + self.self_attn(x))
            return self.norm2(x + self.linear2(tf.gelu(self.linear1(x))))

    return EncoderBlock()


# -- hip.tensor ------------------------------------------------------------------------------------------------


def ht_resnet18(ht, num_classes: int = 1000):
    """ResNet-18 on hip.tensor.nn with torchvision's names; `.fuse()` (eval only) folds each
    BatchNorm into its convolution and runs ReLU and the residual add in the convolution's pass."""
    nn = ht.nn
    F = nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1, downsample=None):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = downsample
            self.fused = False

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            if self.fused:
                return self.conv2(self.conv1(x, activation="relu"), activation="relu", residual=identity)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return F.relu(out + identity, inplace=True)

        def fuse(self):
            self.conv1, self.bn1 = nn.utils.fuse_conv_bn_eval(self.conv1, self.bn1), nn.Identity()
            self.conv2, self.bn2 = nn.utils.fuse_conv_bn_eval(self.conv2, self.bn2), nn.Identity()
            if self.downsample is not None:
                d = self.downsample
                d._modules["0"], d._modules["1"] = nn.utils.fuse_conv_bn_eval(d[0], d[1]), nn.Identity()
            self.fused = True

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inplanes = 64
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = self._layer(64, 1)
            self.layer2 = self._layer(128, 2)
            self.layer3 = self._layer(256, 2)
            self.layer4 = self._layer(512, 2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)
            self.fused = False

        def _layer(self, planes, stride):
            down = None
            if stride != 1 or self.inplanes != planes:
                down = nn.Sequential(nn.Conv2d(self.inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))
            blocks = [BasicBlock(self.inplanes, planes, stride, down), BasicBlock(planes, planes)]
            self.inplanes = planes
            return nn.Sequential(*blocks)

        def forward(self, x):
            if self.fused:
                x = self.conv1(x, activation="relu")
            else:
                x = self.relu(self.bn1(self.conv1(x)))
            x = self.maxpool(x)
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            x = self.avgpool(x)
            return self.fc(x.reshape((x.shape[0], x.shape[1])))

        def fuse(self):
            """Fold the BatchNorms (eval mode: their running statistics) into the convolutions."""
            if self.training:
                raise ValueError("fuse: call .eval() first (BatchNorm folds only with running statistics)")
            self.conv1, self.bn1 = nn.utils.fuse_conv_bn_eval(self.conv1, self.bn1), nn.Identity()
            for layer in (self.layer1, self.layer2, self.layer3, self.layer4):
                for block in layer:
                    block.fuse()
            self.fused = True
            return self

    return ResNet()


def ht_encoder_block(ht, d_model: int = 1024, nhead: int = 16, dim_ff: int = 4096, eps: float = 1e-5):
    """The encoder block on hip.tensor.nn, TransformerEncoderLayer's names. Fused (the default):
    q, k, v are views of one projection's output, the heads one batched ht.matmul each way, the
    scale in the softmax, each residual added by the linear before its LayerNorm (hipBLASLt's C),
    erf-GELU one pass after linear1. `fused = False`: PyTorch's operator sequence."""
    nn = ht.nn
    F = nn.functional

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.in_proj_weight = ht.zeros((3 * d_model, d_model), dtype="float32")     # load_state_dict fills them
            self.in_proj_bias = ht.zeros((3 * d_model,), dtype="float32")
            self.out_proj = nn.Linear(d_model, d_model)

        def scores_and_values(self, x2, b, s, fused):
            """x2 (b * s, e) -> the heads' attention output (b * s, e), contiguous."""
            e, h = d_model, nhead
            qkv = F.linear(x2, self.in_proj_weight, self.in_proj_bias).reshape((b, s, 3, h, e // h))
            q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))       # (b, h, s, d) views
            scale = (e // h) ** -0.5
            if fused:
                p = F.softmax(ht.matmul(q, k.mT), dim=-1, scale=scale)
            else:
                p = F.softmax(ht.matmul(q, k.mT) * scale, dim=-1)
            return ht.matmul(p, v).transpose(0, 2, 1, 3).reshape((b * s, e))

    class EncoderBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.self_attn = SelfAttention()
            self.linear1 = nn.Linear(d_model, dim_ff)
            self.linear2 = nn.Linear(dim_ff, d_model)
            self.norm1 = nn.LayerNorm(d_model, eps=eps)
            self.norm2 = nn.LayerNorm(d_model, eps=eps)
            self.fused = True

        def forward(self, x):
            b, s, e = x.shape
            x2 = x.reshape((b * s, e))
            o = self.self_attn.scores_and_values(x2, b, s, self.fused)
            if self.fused:
                h = self.norm1(self.self_attn.out_proj(o, residual=x2))
                y = self.norm2(self.linear2(self.linear1(h, activation="gelu"), residual=h))
            else:
                h = self.norm1(x2 + self.self_attn.out_proj(o))
                y = self.norm2(h + self.linear2(F.gelu(self.linear1(h))))
            return y.reshape((b, s, e))

    return EncoderBlock()


def max_rel_diff(got, want) -> float:
    """max |got - want| / max |want| (NumPy arrays)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def count_launches(fn):
    """(result, kernels, library calls) of one call of fn: hip.tensor's own kernel launches
    (hip.tensor._core.launch counts every one, whichever path launched it) and its hipBLAS gemm
    and hipBLASLt matmul calls, counted on the host."""
    from hip.tensor._core import launch as _launch
    from hip.tensor._libs import blas, blaslt
    counts = {"kernels": 0, "library": 0}
    saved = blas.gemm_batched, blaslt.linear

    def gemm(*a, **k):
        counts["library"] += 1
        return saved[0](*a, **k)

    def linear(*a, **k):
        ran = saved[1](*a, **k)
        counts["library"] += bool(ran)
        return ran

    blas.gemm_batched, blaslt.linear = gemm, linear
    start = _launch.launches()
    try:
        out = fn()
    finally:
        blas.gemm_batched, blaslt.linear = saved
    counts["kernels"] = _launch.launches() - start
    return out, counts["kernels"], counts["library"]
