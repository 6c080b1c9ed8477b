"""Per-case metadata and reference->case parameter mappings used by verify.py.

Each entry:
  ref      (level, KernelBench v0.1 name)
  category one of the brief's categories
  note     one line on what changed
  cls      class to instantiate in the case file (default "Model")
  ref_init constructor args for the reference Model (default: the case's get_init_inputs())
  params   {case state_dict key: python expression over `ref` (the reference module)}
  run      optional "fn(ns, model, ref, xs)" expression string evaluated to compute the case output
           (used for triton rows: the torch reference helper)
  triton   optional {"cls": ..., "params": {...}} -- the Triton ModelNew, run under TRITON_INTERPRET=1
"""

def lin(src, dst=None):
    dst = dst or src
    return {f"{dst}.weight": f"ref.{src}.weight", f"{dst}.bias": f"ref.{src}.bias"}

def mp(src, dst):
    return {f"{dst}.weight": f"ref.{src}.weight", f"{dst}.bias": f"ref.{src}.bias"}

L1 = lambda n: (1, n)
L2 = lambda n: (2, n)

PARA = {}
def P(file, ref, category, note, **kw):
    PARA[file] = dict(ref=ref, category=category, note=note, **kw)

LOOK = {}
def L(file, para, note, **kw):
    LOOK[file] = dict(para=para, note=note, **kw)

# ----------------------------------------------------------------------------- heldout
H = "heldout/"
GELU, L1N, MEAN, LN, RMS = L1("88_MinGPTNewGelu"), L1("38_L1Norm_"), L1("48_Mean_reduction_over_a_dimension"), L1("40_LayerNorm"), L1("36_RMSNorm_")
SWISH, SPLUS, SMAX = L1("25_Swish"), L1("29_Softplus"), L1("23_Softmax")
CRB, CSTS, CSSM = L2("1_Conv2D_ReLU_BiasAdd"), L2("46_Conv2d_Subtract_Tanh_Subtract_AvgPool"), L2("87_Conv2d_Subtract_Subtract_Mish")
MSMR, MSR, MSS = L2("9_Matmul_Subtract_Multiply_ReLU"), L2("40_Matmul_Scaling_ResidualAdd"), L2("59_Matmul_Swish_Scaling")
GAR, GML, GRD = L2("76_Gemm_Add_ReLU"), L2("12_Gemm_Multiply_LeakyReLU"), L2("63_Gemm_ReLU_Divide")
MSUM, MLP = L2("18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp"), (3, "1_MLP")

P(H+"p01_gelu_tanh_functional.py", GELU, "composite_vs_formula", "hand-written tanh-GELU formula replaced by F.gelu(approximate='tanh'), randn inputs, new names")
P(H+"p02_gelu_tanh_triton.py", GELU, "triton_row", "ModelNew with a Triton tanh-GELU kernel (tanh via sigmoid) + torch helper using x*x*x and a precomputed sqrt(2/pi)",
  run="ns['gelu_tanh_torch'](*xs)", triton=dict(cls="ModelNew", params={}))
P(H+"p03_l1norm_vector_norm.py", L1N, "composite_vs_formula", "mean(|x|) spelled torch.linalg.vector_norm(ord=1)/n")
P(H+"p04_l1norm_embedded_middle.py", L1N, "embedded", "L1 (mean-abs) normaliser as abs().sum().div(D), class MeanAbsNormalizer in the middle of a 177-line utils file", cls="MeanAbsNormalizer")
P(H+"p05_mean_default_axis.py", MEAN, "init_args", "dim becomes defaulted 'axis' (+ keepdim=False default), get_init_inputs() returns []", ref_init=[1])
P(H+"p06_mean_sum_over_size.py", MEAN, "composite_vs_formula", "torch.mean spelled x.sum(d) / x.size(d)", ref_init=[1])
P(H+"p07_layernorm_manual.py", LN, "composite_vs_formula", "nn.LayerNorm spelled out: mean/biased var over trailing dims, raw weight/bias Parameters",
  params={"weight": "ref.ln.weight", "bias": "ref.ln.bias"})
P(H+"p08_layernorm_functional_params.py", LN, "functional_params", "F.layer_norm with raw gamma/beta Parameters registered beta-first",
  params={"gamma": "ref.ln.weight", "beta": "ref.ln.bias"})
P(H+"p09_rmsnorm_rsqrt.py", RMS, "algebraic", "x / sqrt(mean(x**2)+eps) rewritten x * rsqrt(mean(x*x)+eps)")
P(H+"p10_rmsnorm_triton.py", RMS, "triton_row", "Triton channel-strided RMSNorm ModelNew + torch reference class Model using pow/add/rsqrt",
  triton=dict(cls="ModelNew", params={}))
P(H+"p11_swish_silu.py", SWISH, "composite_vs_formula", "x*sigmoid(x) replaced by F.silu")
P(H+"p12_swish_sizes.py", SWISH, "sizes", "3-D (3, 77, 320) randn input instead of (4096, 393216); x * x.sigmoid()")
P(H+"p13_softplus_logaddexp.py", SPLUS, "composite_vs_formula", "F.softplus spelled torch.logaddexp(x, 0)")
P(H+"p14_softmax_manual.py", SMAX, "composite_vs_formula", "torch.softmax spelled as exp(x - amax) / sum")
P(H+"p15_softmax_embedded_bottom.py", SMAX, "embedded", "softmax as exp(log_softmax(x, -1)) at the bottom of a 162-line classification-utils file")
P(H+"p16_conv_relu_bias_functional.py", CRB, "functional_params", "F.conv2d/F.relu with raw kernel/kernel_bias/shift Parameters, shift registered first",
  params={"shift": "ref.bias", "kernel": "ref.conv.weight", "kernel_bias": "ref.conv.bias"})
P(H+"p17_conv_relu_bias_renamed.py", CRB, "renamed_docstrings", "LLM-style renames (feature_extractor, channel_offset, c_in/c_out/k), new docstring, relu as clamp_min(0)",
  params={"feature_extractor.weight": "ref.conv.weight", "feature_extractor.bias": "ref.conv.bias", "channel_offset": "ref.bias"})
P(H+"p18_conv_sub_tanh_pool_first.py", CSTS, "algebraic", "second scalar subtraction moved after AvgPool (pooling before subtraction)", params=lin("conv"))
P(H+"p19_conv_sub_tanh_sub_pool_triton.py", CSTS, "triton_row", "ModelNew: nn.Conv2d + Triton fused sub-tanh-sub + F.avg_pool2d; torch reference_forward helper with raw weights",
  run="ns['reference_forward'](xs[0], ref.conv.weight, ref.conv.bias, 0.5, 0.2, 2)", triton=dict(cls="ModelNew", params=lin("conv")))
P(H+"p20_conv_combined_shift_mish.py", CSSM, "algebraic", "two subtractions merged into one constant; mish spelled x*tanh(softplus(x))", params=lin("conv"))
P(H+"p21_conv_bias_folded_mish.py", CSSM, "algebraic", "both subtractions folded into the conv bias at init; forward is F.mish(conv(x))",
  params={"conv.weight": "ref.conv.weight", "conv.bias": "ref.conv.bias - 0.7"})
P(H+"p22_linear_sub_mul_relu_factored.py", MSMR, "algebraic", "positive multiplier pulled outside the ReLU: m * clamp(x - c, min=0)", params=lin("linear"))
P(H+"p23_linear_sub_mul_relu_initargs.py", MSMR, "init_args", "constructor (in, out, scale, offset) with defaults; get_init_inputs only passes sizes; layer renamed fc",
  ref_init=[40, 40, 2.0, 1.5], params=mp("linear", "fc"))
P(H+"p24_linear_scale_residual_folded.py", MSR, "algebraic", "y*s + y.clone().detach() folded into y * (1 + s)", params=lin("matmul"))
P(H+"p25_linear_scale_residual_functional.py", MSR, "functional_params", "raw W/b with F.linear, residual as torch.add(y, y.detach(), alpha=s)",
  params={"W": "ref.matmul.weight", "b": "ref.matmul.bias"})
P(H+"p26_linear_swish_scale_triton.py", MSS, "triton_row", "ModelNew: nn.Linear + Triton swish*scale kernel; torch_reference helper uses F.linear + F.silu",
  run="ns['torch_reference'](xs[0], ref.matmul.weight, ref.matmul.bias, 2.0)", triton=dict(cls="ModelNew", params=lin("matmul")))
P(H+"p27_linear_swish_scale_embedded_top.py", MSS, "embedded", "SwishProjection (F.silu(...).mul(s)) at the top of a 159-line benchmarking-utils file",
  cls="SwishProjection", params=mp("matmul", "proj"))
P(H+"p28_gemm_add_relu_addmm.py", GAR, "functional_params", "raw weight/bias Parameters (bias first), F.relu(torch.addmm(bias, x, W.t()))",
  params={"bias": "ref.bias", "weight": "ref.gemm.weight"})
P(H+"p29_gemm_add_relu_sizes.py", GAR, "sizes", "3-D (4, 10, 48) token input, 48->80 features instead of (1024, 8192)",
  params={"gemm.weight": "ref.gemm.weight", "bias": "ref.bias"})
P(H+"p30_matmul_reduction_chain_collapsed.py", MSUM, "algebraic", "sum/max/mean/lse/lse over singleton axes collapsed: x @ W.sum(0) + b.sum()", params=lin("linear"))
P(H+"p31_mlp_parameterlist.py", MLP, "functional_params", "nn.Sequential MLP rewritten with ParameterList + F.linear loop",
  params={"weights.0": "ref.network[0].weight", "biases.0": "ref.network[0].bias", "weights.1": "ref.network[2].weight",
          "biases.1": "ref.network[2].bias", "weights.2": "ref.network[4].weight", "biases.2": "ref.network[4].bias"})
P(H+"p32_gemm_mul_leaky_initargs.py", GML, "init_args", "constructor reordered (negative_slope first, multiplier defaulted), F.leaky_relu",
  ref_init=[72, 56, 2.0, 0.1], params=lin("gemm"))
P(H+"p33_gemm_mul_leaky_renamed.py", GML, "renamed_docstrings", "renamed (proj, gain, leak, d_in/d_hidden), new docstring, leaky relu as torch.where", params=mp("gemm", "proj"))
P(H+"p34_gemm_relu_divide_renamed.py", GRD, "renamed_docstrings", "renamed (dense, inv_scale, n_in/n_out), new docstring, division as multiply by reciprocal", params=mp("linear", "dense"))
P(H+"p35_gemm_relu_divide_sizes.py", GRD, "sizes", "near-verbatim structure, other sizes (33 x 100 -> 72)", params=lin("linear"))

L(H+"l01_hardswish_functional.py", H+"p01_gelu_tanh_functional.py", "F.hardswish instead of tanh-GELU")
L(H+"l02_gelu_complement_triton.py", H+"p02_gelu_tanh_triton.py", "kernel and helper compute 0.5*x*(1 - tanh(.)) = x - gelu(x)")
L(H+"l03_maxnorm_vector_norm.py", H+"p03_l1norm_vector_norm.py", "vector_norm ord=inf (max-abs) instead of ord=1")
L(H+"l04_maxabs_embedded_middle.py", H+"p04_l1norm_embedded_middle.py", "divides by max |x| instead of mean |x|", cls="MaxAbsNormalizer")
L(H+"l05_logsumexp_default_axis.py", H+"p05_mean_default_axis.py", "logsumexp instead of mean along the axis")
L(H+"l06_meansquare_sum_over_size.py", H+"p06_mean_sum_over_size.py", "mean of squares: x.square().sum(d) / x.size(d)")
L(H+"l07_lastdim_norm_manual.py", H+"p07_layernorm_manual.py", "statistics over the last dim only instead of (C, H, W)")
L(H+"l08_centering_functional_params.py", H+"p08_layernorm_functional_params.py", "mean-centring only (no variance normalisation)")
L(H+"l09_rmsnorm_lastdim_rsqrt.py", H+"p09_rmsnorm_rsqrt.py", "RMS over the last (width) dim instead of channels")
L(H+"l10_maxabsnorm_triton.py", H+"p10_rmsnorm_triton.py", "kernel and reference divide by max|x| over channels instead of RMS")
L(H+"l11_mish_functional.py", H+"p11_swish_silu.py", "F.mish instead of F.silu")
L(H+"l12_inverted_swish_sizes.py", H+"p12_swish_sizes.py", "x * sigmoid(-x) instead of x * sigmoid(x)")
L(H+"l13_softplus_neg_logaddexp.py", H+"p13_softplus_logaddexp.py", "softplus(-x) = logaddexp(-x, 0)")
L(H+"l14_softmax_batchaxis_manual.py", H+"p14_softmax_manual.py", "softmax over dim 0 (batch) on a square input")
L(H+"l15_softmin_embedded_bottom.py", H+"p15_softmax_embedded_bottom.py", "softmax(-x) (softmin)")
L(H+"l16_conv_sigmoid_bias_functional.py", H+"p16_conv_relu_bias_functional.py", "sigmoid instead of ReLU after the conv")
L(H+"l17_conv_bias_relu_renamed.py", H+"p17_conv_relu_bias_renamed.py", "offset added before the ReLU instead of after")
L(H+"l18_conv_sub_pool_tanh.py", H+"p18_conv_sub_tanh_pool_first.py", "pooling moved before the tanh (not legal: tanh is nonlinear)")
L(H+"l19_conv_sub_tanh_sub_maxpool_triton.py", H+"p19_conv_sub_tanh_sub_pool_triton.py", "max pooling instead of average pooling")
L(H+"l20_conv_mish_then_shift.py", H+"p20_conv_combined_shift_mish.py", "shift applied after Mish instead of before")
L(H+"l21_conv_bias_folded_tanh_softplus.py", H+"p21_conv_bias_folded_mish.py", "tanh(softplus(.)) without the x factor of Mish")
L(H+"l22_linear_sub_abs_mul.py", H+"p22_linear_sub_mul_relu_factored.py", "|x - c| instead of relu(x - c)")
L(H+"l23_linear_sub_mul_sigmoid_initargs.py", H+"p23_linear_sub_mul_relu_initargs.py", "sigmoid instead of ReLU")
L(H+"l24_linear_tanh_residual.py", H+"p24_linear_scale_residual_folded.py", "y + s*tanh(y) instead of y + s*y")
L(H+"l25_linear_quadratic_residual_functional.py", H+"p25_linear_scale_residual_functional.py", "y + s*y^2 instead of y + s*y")
L(H+"l26_linear_sigmoid_scale_triton.py", H+"p26_linear_swish_scale_triton.py", "sigmoid(y)*s instead of swish(y)*s")
L(H+"l27_linear_tanh_scale_embedded_top.py", H+"p27_linear_swish_scale_embedded_top.py", "tanh instead of swish", cls="TanhProjection")
L(H+"l28_gemm_relu_add.py", H+"p28_gemm_add_relu_addmm.py", "bias added after the ReLU")
L(H+"l29_gemm_add_sigmoid_sizes.py", H+"p29_gemm_add_relu_sizes.py", "sigmoid instead of ReLU")
L(H+"l30_matmul_logsumexp_score.py", H+"p30_matmul_reduction_chain_collapsed.py", "logsumexp over features instead of the sum")
L(H+"l31_mlp_relu_everywhere.py", H+"p31_mlp_parameterlist.py", "ReLU also after the output layer")
L(H+"l32_gemm_mul_selu_initargs.py", H+"p32_gemm_mul_leaky_initargs.py", "SELU instead of LeakyReLU")
L(H+"l33_gemm_mul_foldneg_renamed.py", H+"p33_gemm_mul_leaky_renamed.py", "negative branch folded to -leak*h (positive) instead of leak*h")
L(H+"l34_gemm_tanh_divide_renamed.py", H+"p34_gemm_relu_divide_renamed.py", "tanh instead of ReLU")
L(H+"l35_gemm_softplus_divide_sizes.py", H+"p35_gemm_relu_divide_sizes.py", "softplus instead of ReLU")

# ----------------------------------------------------------------------------- dev
D = "dev/"
P(D+"p01_relu_clamp.py", L1("19_ReLU"), "composite_vs_formula", "relu as clamp(min=0), randn input")
P(D+"p02_sigmoid_tanh_identity.py", L1("21_Sigmoid"), "algebraic", "sigmoid via 0.5*(tanh(x/2)+1)")
P(D+"p03_logsoftmax_lse.py", L1("24_LogSoftmax"), "composite_vs_formula", "log_softmax as x - logsumexp(x)")
P(D+"p04_l2norm_normalize.py", L1("39_L2Norm_"), "composite_vs_formula", "x / norm(x) as F.normalize(p=2, dim=1)")
P(D+"p05_sum_via_mean.py", L1("47_Sum_reduction_over_a_dimension"), "algebraic", "sum as mean * size, defaulted dim", ref_init=[1])
P(D+"p06_mse_functional.py", L1("94_MSELoss"), "composite_vs_formula", "mean((p - t)**2) as F.mse_loss")
P(D+"p07_elu_where.py", L1("31_ELU"), "composite_vs_formula", "F.elu as torch.where(x > 0, x, alpha*expm1(x))", ref_init=[1.0])
P(D+"p08_gemm_div_sum_scale_collapsed.py", L2("14_Gemm_Divide_Sum_Scaling"), "algebraic", "row-sum pushed into the weight: x @ W.sum(0) * s/2",
  params={"weight": "ref.weight"})
P(D+"p09_linear_mish_mish_functional.py", L2("29_Matmul_Mish_Mish"), "functional_params", "raw w/b + F.linear, mish as x*tanh(softplus(x)) helper",
  params={"w": "ref.linear.weight", "b": "ref.linear.bias"})
P(D+"p10_linear_sigmoid_rowsum_triton.py", L2("56_Matmul_Sigmoid_Sum"), "triton_row", "ModelNew with a Triton sigmoid+row-sum kernel + torch reference helper",
  run="ns['reference'](xs[0], ref.linear.weight, ref.linear.bias)", triton=dict(cls="ModelNew", params=lin("linear")))
P(D+"p11_linear_div_gelu_embedded.py", L2("86_Matmul_Divide_GELU"), "embedded", "ScaledGeluHead (multiply by 1/divisor, gelu) in the middle of a 153-line text-utils file",
  cls="ScaledGeluHead", params=mp("linear", "dense"))
P(D+"p12_gemm_sigmoid_residual_renamed.py", L2("70_Gemm_Sigmoid_Scaling_ResidualAdd"), "renamed_docstrings", "renamed (project, gain), chained sigmoid().mul().add()",
  params=mp("gemm", "project"))

L(D+"l01_squared_relu_clamp.py", D+"p01_relu_clamp.py", "squared ReLU")
L(D+"l02_sigmoid2x_tanh_identity.py", D+"p02_sigmoid_tanh_identity.py", "sigmoid(2x) via tanh(x)")
L(D+"l03_max_shift_scores.py", D+"p03_logsoftmax_lse.py", "x - max(x) instead of x - logsumexp(x)")
L(D+"l04_l3norm_normalize.py", D+"p04_l2norm_normalize.py", "L3 normalisation instead of L2")
L(D+"l05_max_times_len.py", D+"p05_sum_via_mean.py", "amax * size instead of mean * size")
L(D+"l06_l1loss_functional.py", D+"p06_mse_functional.py", "F.l1_loss instead of F.mse_loss")
L(D+"l07_swishtail_where.py", D+"p07_elu_where.py", "alpha*x*sigmoid(x) negative branch instead of alpha*expm1(x)")
L(D+"l08_gemm_relu_sum_scale.py", D+"p08_gemm_div_sum_scale_collapsed.py", "ReLU before the row sum")
L(D+"l09_linear_mish_tanh_functional.py", D+"p09_linear_mish_mish_functional.py", "second mish replaced by tanh")
L(D+"l10_linear_tanh_rowsum_triton.py", D+"p10_linear_sigmoid_rowsum_triton.py", "tanh row-sum instead of sigmoid row-sum")
L(D+"l11_linear_gelu_div_embedded.py", D+"p11_linear_div_gelu_embedded.py", "divide after the GELU instead of before")
L(D+"l12_gemm_tanh_residual_renamed.py", D+"p12_gemm_sigmoid_residual_renamed.py", "tanh gate instead of sigmoid")
