// A CUTLASS 2.x kernel with its Params struct by value: the SIMT single-precision GEMM of
// cutlass::gemm::device::Gemm<float, RowMajor, float, RowMajor, float, RowMajor> (threadblock
// 128x128x8, warp 32x64x8, two stages, 256 threads; LinearCombination epilogue), as CUTLASS's
// examples/00_basic_gemm launches it: `cutlass::Kernel<GemmKernel><<<grid, 256, smem>>>(params)`,
// where `params` is a GemmKernel::Params of several hundred bytes (problem and tile shapes,
// iterator strides and increments, the four tensor refs, the epilogue's alpha and beta).
// CUTLASS (https://github.com/NVIDIA/cutlass, commit 7107b055; headers unedited): Copyright (c) 2017 - 2026
// NVIDIA CORPORATION & AFFILIATES, SPDX-License-Identifier: BSD-3-Clause.
// inputs/params.cu builds the same Params on the host and writes its bytes (inputs/params.bin);
// launch.toml passes them with the four buffer addresses as fields at their offsets.
#include <cutlass/gemm/device/gemm.h>

using Gemm = cutlass::gemm::device::Gemm<float, cutlass::layout::RowMajor,
                                         float, cutlass::layout::RowMajor,
                                         float, cutlass::layout::RowMajor>;

template __global__ void cutlass::Kernel<Gemm::GemmKernel>(Gemm::GemmKernel::Params);
