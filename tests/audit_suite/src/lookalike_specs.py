H = "heldout"
spec(H, "p01_gelu_tanh_functional.py", "l01_hardswish_functional.py",
     R('F.gelu(hidden_states, approximate="tanh")', 'F.hardswish(hidden_states)'),
     R("Tanh-approximated Gaussian Error Linear Unit, the variant used by\n    GPT-2 / BERT style feed-forward blocks.",
       "Hard-swish activation, the piecewise-quadratic gate used by\n    MobileNetV3 style feed-forward blocks."),
     R("Uses PyTorch's built-in approximation instead of spelling the cubic\n    polynomial out by hand.",
       "Uses PyTorch's built-in kernel instead of spelling relu6(x + 3) / 6 out\n    by hand."))
spec(H, "p02_gelu_tanh_triton.py", "l02_gelu_complement_triton.py",
     R("y = 0.5 * x * (1.0 + t)", "y = 0.5 * x * (1.0 - t)"),
     R("(1.0 + torch.tanh(", "(1.0 - torch.tanh("),
     R('"""GELU (tanh approximation) implemented', '"""Complementary GELU gate x * (1 - Phi(x)) (tanh approximation) implemented'))
spec(H, "p03_l1norm_vector_norm.py", "l03_maxnorm_vector_norm.py",
     R("ord=1,", 'ord=float("inf"),'),
     R("mean_abs", "scaled_max", 2),
     R("Mean-absolute-value normalisation.\n\n    Every row of the input is rescaled so that the average magnitude of its\n    entries becomes one.",
       "Max-magnitude normalisation.\n\n    Every row of the input is rescaled so that its largest magnitude equals\n    the row length."))
spec(H, "p04_l1norm_embedded_middle.py", "l04_maxabs_embedded_middle.py",
     R("denom = feats.abs().sum(dim=1, keepdim=True).div(feats.shape[1])", "denom = feats.abs().amax(dim=1, keepdim=True)"),
     R("by the mean absolute value of its\n    entries, so that sum(|x|) / D == 1 for each row.",
       "by the largest absolute value of its\n    entries, so that max(|x|) == 1 for each row."),
     R("MeanAbsNormalizer", "MaxAbsNormalizer"))
spec(H, "p05_mean_default_axis.py", "l05_logsumexp_default_axis.py",
     R("torch.mean(x, dim=self.axis, keepdim=self.keepdim)", "torch.logsumexp(x, dim=self.axis, keepdim=self.keepdim)"),
     R("Average a 3-D activation tensor along one axis", "Soft maximum (log-sum-exp) of a 3-D activation tensor along one axis"))
spec(H, "p06_mean_sum_over_size.py", "l06_meansquare_sum_over_size.py",
     R("total = x.sum(self.dim)", "total = x.square().sum(self.dim)"),
     R("Computes the arithmetic average along `dim`", "Computes the mean of squares (second raw moment) along `dim`"))
spec(H, "p07_layernorm_manual.py", "l07_lastdim_norm_manual.py",
     R("dims = tuple(range(x.dim() - k, x.dim()))", "dims = (x.dim() - 1,)"),
     R("over the trailing `normalized_shape` dimensions", "over the last (width) dimension only"))
spec(H, "p08_layernorm_functional_params.py", "l08_centering_functional_params.py",
     R("return F.layer_norm(x, self.normalized_shape, weight=self.gamma, bias=self.beta, eps=1e-5)",
       "return (x - x.mean(dim=(1, 2, 3), keepdim=True)) * self.gamma + self.beta"),
     R("Functional layer norm over (C, H, W)", "Mean-centring over (C, H, W)"))
spec(H, "p09_rmsnorm_rsqrt.py", "l09_rmsnorm_lastdim_rsqrt.py",
     R("(x * x).mean(dim=1, keepdim=True)", "(x * x).mean(dim=-1, keepdim=True)"),
     R("across the channel axis of an NCHW tensor", "across the last (width) axis of an NCHW tensor"))
spec(H, "p10_rmsnorm_triton.py", "l10_maxabsnorm_triton.py",
     R("ms = x.pow(2).mean(1, keepdim=True)\n        return x * ms.add(self.eps).rsqrt()",
       "mx = x.abs().amax(1, keepdim=True)\n        return x / mx.add(self.eps)"),
     R("mean_sq = tl.sum(x * x, axis=0) / C\n    inv = 1.0 / tl.sqrt(mean_sq + eps)",
       "max_abs = tl.max(tl.abs(x), axis=0)\n    inv = 1.0 / (max_abs + eps)"),
     R("RMS normalisation", "max-abs normalisation"),
     R("_rmsnorm_channels_kernel", "_maxabs_channels_kernel", 2))
spec(H, "p11_swish_silu.py", "l11_mish_functional.py",
     R("F.silu(x)", "F.mish(x)"),
     R("Sigmoid-weighted linear unit (SiLU / Swish-1)", "Self-regularised non-monotonic activation (Mish)"))
spec(H, "p12_swish_sizes.py", "l12_inverted_swish_sizes.py",
     R("x * x.sigmoid()", "x * (-x).sigmoid()"),
     R("Swish activation on", "Swish-style gate with an inverted sigmoid on"))
spec(H, "p13_softplus_logaddexp.py", "l13_softplus_neg_logaddexp.py",
     R("torch.logaddexp(x, torch.zeros_like(x))", "torch.logaddexp(-x, torch.zeros_like(x))"),
     R("Smooth ReLU: log(1 + e^x)", "Negative log-sigmoid: log(1 + e^-x)"),
     R("logaddexp(x, 0).", "logaddexp(-x, 0)."))
spec(H, "p14_softmax_manual.py", "l14_softmax_batchaxis_manual.py",
     R("logits.amax(dim=1, keepdim=True)", "logits.amax(dim=0, keepdim=True)"),
     R("e.sum(dim=1, keepdim=True)", "e.sum(dim=0, keepdim=True)"),
     R("Row-wise softmax", "Column-wise softmax (normalised over the batch axis)"))
spec(H, "p15_softmax_embedded_bottom.py", "l15_softmin_embedded_bottom.py",
     R("torch.exp(F.log_softmax(logits, dim=-1))", "torch.exp(F.log_softmax(-logits, dim=-1))"),
     R("Converts a batch of logits (N, C) into class probabilities.", "Converts a batch of distances (N, C) into class probabilities\n    (smaller distance means more likely)."))
spec(H, "p16_conv_relu_bias_functional.py", "l16_conv_sigmoid_bias_functional.py",
     R("y = F.relu(y)", "y = torch.sigmoid(y)"),
     R("-> ReLU ->", "-> sigmoid ->"))
spec(H, "p17_conv_relu_bias_renamed.py", "l17_conv_bias_relu_renamed.py",
     R("responses = responses.clamp_min(0.0)  # keep positive responses only\n        return responses + self.channel_offset",
       "responses = responses + self.channel_offset\n        return responses.clamp_min(0.0)  # keep positive responses only"),
     R("keeps only\n    the positive responses and finally re-centres every feature map with its\n    own learnable offset.",
       "re-centres\n    every feature map with its own learnable offset and finally keeps only the\n    positive responses."))
spec(H, "p18_conv_sub_tanh_pool_first.py", "l18_conv_sub_pool_tanh.py",
     R("x = torch.tanh(self.conv(x) - self.pre_shift)\n        x = self.avgpool(x)",
       "x = self.avgpool(self.conv(x) - self.pre_shift)\n        x = torch.tanh(x)"),
     R("Conv2d -> subtract -> tanh -> average pool -> subtract.", "Conv2d -> subtract -> average pool -> tanh -> subtract."),
     R("The second subtraction is a scalar, so it is applied after the pooling\n    (average pooling commutes with subtracting a constant); this shrinks the\n    elementwise work by the pooling factor.",
       "Pooling before the activation shrinks the elementwise work by the\n    pooling factor."))
spec(H, "p19_conv_sub_tanh_sub_pool_triton.py", "l19_conv_sub_tanh_sub_maxpool_triton.py",
     R("return F.avg_pool2d(y, pool)", "return F.max_pool2d(y, pool)"),
     R("return F.avg_pool2d(out, self.pool)", "return F.max_pool2d(out, self.pool)"))
spec(H, "p20_conv_combined_shift_mish.py", "l20_conv_mish_then_shift.py",
     R("z = self.conv(x) - self.total_shift\n        return z * torch.tanh(F.softplus(z))  # mish",
       "z = self.conv(x)\n        return z * torch.tanh(F.softplus(z)) - self.total_shift  # mish, then shift"),
     R("Convolution followed by a single combined shift and Mish.", "Convolution followed by Mish and a single combined shift."))
spec(H, "p21_conv_bias_folded_mish.py", "l21_conv_bias_folded_tanh_softplus.py",
     R("return F.mish(self.conv(x))", "return torch.tanh(F.softplus(self.conv(x)))"),
     R("Conv2d + Mish", "Conv2d + tanh(softplus(.)) gate"))
spec(H, "p22_linear_sub_mul_relu_factored.py", "l22_linear_sub_abs_mul.py",
     R("torch.clamp(t, min=0.0)", "t.abs()"),
     R("-> ReLU, with the positive scale m pulled outside the\n    ReLU (relu(m * t) == m * relu(t) for m > 0).",
       "-> absolute value, with the positive scale m applied\n    last (|m * t| == m * |t| for m > 0)."),
     R("(x - c) * m", "|x - c| * m"))
spec(H, "p23_linear_sub_mul_relu_initargs.py", "l23_linear_sub_mul_sigmoid_initargs.py",
     R("torch.relu(", "torch.sigmoid("),
     R("and rectification", "and sigmoid squashing"))
spec(H, "p24_linear_scale_residual_folded.py", "l24_linear_tanh_residual.py",
     R("return y * (1.0 + self.scaling_factor)", "return y + self.scaling_factor * torch.tanh(y)"),
     R("Linear layer whose output is scaled and added back to itself.\n    y * s + y is computed as a single multiply by (1 + s).",
       "Linear layer with a scaled tanh branch added back to its output:\n    y + s * tanh(y)."))
spec(H, "p25_linear_scale_residual_functional.py", "l25_linear_quadratic_residual_functional.py",
     R("torch.add(y, y.detach(), alpha=self.alpha)", "torch.add(y, y * y, alpha=self.alpha)"),
     R("with a scaled self-residual, y + alpha * y.", "with a scaled quadratic term, y + alpha * y^2."))
spec(H, "p26_linear_swish_scale_triton.py", "l26_linear_sigmoid_scale_triton.py",
     R("out = v * tl.sigmoid(v) * scale", "out = tl.sigmoid(v) * scale"),
     R("return F.silu(h) * scaling_factor", "return torch.sigmoid(h) * scaling_factor"),
     R("swish + scaling", "sigmoid + scaling"),
     R("swish_scale_kernel", "sigmoid_scale_kernel", 2))
spec(H, "p27_linear_swish_scale_embedded_top.py", "l27_linear_tanh_scale_embedded_top.py",
     R("return F.silu(self.proj(x)).mul(self.scale)", "return torch.tanh(self.proj(x)).mul(self.scale)"),
     R("Linear -> Swish -> constant gain.", "Linear -> Tanh -> constant gain."),
     R("SwishProjection", "TanhProjection", 2))
spec(H, "p28_gemm_add_relu_addmm.py", "l28_gemm_relu_add.py",
     R("return F.relu(torch.addmm(self.bias, x, self.weight.t()))", "return F.relu(x @ self.weight.t()) + self.bias"),
     R("Bias-add + ReLU fused into the GEMM epilogue via torch.addmm.", "GEMM + ReLU, with the bias added after the activation."))
spec(H, "p29_gemm_add_relu_sizes.py", "l29_gemm_add_sigmoid_sizes.py",
     R("return torch.relu(x)", "return torch.sigmoid(x)"),
     R("bias and ReLU.", "bias and a sigmoid."))
spec(H, "p30_matmul_reduction_chain_collapsed.py", "l30_matmul_logsumexp_score.py",
     R("w = self.linear.weight.sum(dim=0)        # (in_features,)\n        b = self.linear.bias.sum()\n        return (x @ w).unsqueeze(1) + b",
       "return torch.logsumexp(self.linear(x), dim=1, keepdim=True)"),
     R("The feature-sum of a linear layer is itself a linear functional, so the\n    weight matrix is reduced first: score = x @ W.sum(0) + b.sum().  This needs\n    a GEMV instead of a full GEMM.",
       "The score is a smooth maximum (log-sum-exp) over the projected features."))
spec(H, "p31_mlp_parameterlist.py", "l31_mlp_relu_everywhere.py",
     R("            if i != n_layers - 1:\n                x = F.relu(x)", "            x = F.relu(x)"),
     R("with ReLU between hidden layers", "with ReLU after every layer (output included)"))
spec(H, "p32_gemm_mul_leaky_initargs.py", "l32_gemm_mul_selu_initargs.py",
     R("F.leaky_relu(self.gemm(x) * self.multiplier, negative_slope=self.negative_slope)", "F.selu(self.gemm(x) * self.multiplier)"),
     R("leaky rectifier", "SELU"))
spec(H, "p33_gemm_mul_leaky_renamed.py", "l33_gemm_mul_foldneg_renamed.py",
     R("torch.where(h > 0, h, h * self.leak)", "torch.where(h > 0, h, -h * self.leak)"),
     R("leaky rectifier that lets a\n    small fraction of negative signal through.", "rectifier that folds negative\n    signal back as a small positive response."),
     R("slope used for negative pre-activations", "fold-back factor for negative pre-activations"))
spec(H, "p34_gemm_relu_divide_renamed.py", "l34_gemm_tanh_divide_renamed.py",
     R("torch.relu(self.dense(inputs))", "torch.tanh(self.dense(inputs))"),
     R("Rectified dense layer", "Tanh dense layer"))
spec(H, "p35_gemm_relu_divide_sizes.py", "l35_gemm_softplus_divide_sizes.py",
     R("x = torch.relu(x)", "x = torch.nn.functional.softplus(x)"),
     R("applies ReLU", "applies Softplus"))
D = "dev"
spec(D, "p01_relu_clamp.py", "l01_squared_relu_clamp.py",
     R("return x.clamp(min=0.0)", "return x.clamp(min=0.0).square()"),
     R("Rectified linear unit expressed as a lower clamp at zero.", "Squared ReLU (Primer): lower clamp at zero, then square."))
spec(D, "p02_sigmoid_tanh_identity.py", "l02_sigmoid2x_tanh_identity.py",
     R("torch.tanh(0.5 * x)", "torch.tanh(x)"),
     R("sigma(x) = (1 + tanh(x / 2)) / 2", "sigma(2x) = (1 + tanh(x)) / 2"))
spec(D, "p03_logsoftmax_lse.py", "l03_max_shift_scores.py",
     R("torch.logsumexp(scores, dim=self.dim, keepdim=True)", "scores.amax(dim=self.dim, keepdim=True)"),
     R("Log-probabilities over the class axis: x - logsumexp(x).", "Max-shifted scores over the class axis: x - max(x) (unnormalised log-probabilities)."))
spec(D, "p04_l2norm_normalize.py", "l04_l3norm_normalize.py",
     R("p=2.0", "p=3.0"),
     R("unit L2 sphere", "unit L3 sphere"))
spec(D, "p05_sum_via_mean.py", "l05_max_times_len.py",
     R("x.mean(dim=self.dim, keepdim=True)", "x.amax(dim=self.dim, keepdim=True)"),
     R("Sum along an axis (kept as size-1), computed as mean times the axis length.", "Peak value along an axis (kept as size-1), scaled by the axis length."))
spec(D, "p06_mse_functional.py", "l06_l1loss_functional.py",
     R("F.mse_loss(", "F.l1_loss("),
     R("Mean squared error", "Mean absolute error"))
spec(D, "p07_elu_where.py", "l07_swishtail_where.py",
     R("self.alpha * torch.expm1(x)", "self.alpha * x * torch.sigmoid(x)"),
     R("Exponential linear unit: x for x > 0, alpha * (exp(x) - 1) otherwise.", "Swish-tailed linear unit: x for x > 0, alpha * x * sigmoid(x) otherwise."))
spec(D, "p08_gemm_div_sum_scale_collapsed.py", "l08_gemm_relu_sum_scale.py",
     R("w_col = self.weight.sum(dim=0, keepdim=True).t()  # (input_size, 1)\n        return torch.mm(x, w_col) * (self.scaling_factor / 2)",
       "h = torch.relu(torch.mm(x, self.weight.t()))\n        return h.sum(dim=1, keepdim=True) * (self.scaling_factor / 2)"),
     R("(x @ W^T / 2).sum(1) * s, with the row-sum pushed into the weight:\n    x @ W.sum(0) * (s / 2).", "relu(x @ W^T / 2).sum(1) * s."))
spec(D, "p09_linear_mish_mish_functional.py", "l09_linear_mish_tanh_functional.py",
     R("return _mish(_mish(h))", "return torch.tanh(_mish(h))"),
     R("followed by two Mish activations", "followed by Mish and tanh"))
spec(D, "p10_linear_sigmoid_rowsum_triton.py", "l10_linear_tanh_rowsum_triton.py",
     R("s = tl.where(mask, tl.sigmoid(v), 0.0)", "s = tl.where(mask, 2.0 * tl.sigmoid(2.0 * v) - 1.0, 0.0)"),
     R("return torch.sigmoid(F.linear(x, weight, bias))", "return torch.tanh(F.linear(x, weight, bias))"),
     R("sigmoid_rowsum_kernel", "tanh_rowsum_kernel", 2))
spec(D, "p11_linear_div_gelu_embedded.py", "l11_linear_gelu_div_embedded.py",
     R("return F.gelu(self.dense(x) * self.inv_temp)", "return F.gelu(self.dense(x)) * self.inv_temp"),
     R("attenuated by a constant temperature before the GELU non-linearity.", "passed through GELU and then attenuated by a constant temperature."))
spec(D, "p12_gemm_sigmoid_residual_renamed.py", "l12_gemm_tanh_residual_renamed.py",
     R("torch.sigmoid(h).mul(self.gain).add(h)", "torch.tanh(h).mul(self.gain).add(h)"),
     R("logistic gate: out = h + gain * sigmoid(h).", "tanh gate: out = h + gain * tanh(h)."))
