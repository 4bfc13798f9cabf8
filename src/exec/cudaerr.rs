//! The device runtime's `cudaGetErrorString` (CUDA dynamic parallelism, `__cudaCDP2GetErrorString`):
//! the strings an H200 (driver 580.159.04, CUDA 13.0's libcudadevrt) returned, measured with
//! `scripts/probes/cdp_memcpy.cu` for every code from 0 to 1099 and for 10000, 99999, -1 and
//! 2^31 - 1 (`docs/launch/cdp-memcpy.md`). Every code not listed reads "unrecognized error code":
//! the measured ones do, and `cudaError_t` (`driver_types.h`) names no value outside those
//! ranges but 10000. The strings live in one read-only global allocation per launch (`devrt.rs`
//! makes it), in this order, each with its terminating zero.

/// The string of every code with a string of its own, by code.
const STRINGS: &[(u32, &str)] = &[
    (0, "no error"),
    (1, "invalid argument"),
    (2, "out of memory"),
    (3, "initialization error"),
    (4, "driver shutting down"),
    (5, "profiler disabled while using external profiling tool"),
    (6, "profiler not initialized: call cudaProfilerInitialize()"),
    (7, "profiler already started"),
    (8, "profiler already stopped"),
    (9, "invalid configuration argument"),
    (12, "invalid pitch argument"),
    (13, "invalid device symbol"),
    (16, "invalid host pointer"),
    (17, "invalid device pointer"),
    (18, "invalid texture reference"),
    (19, "texture is not bound to a pointer"),
    (20, "invalid channel descriptor"),
    (21, "invalid copy direction for memcpy"),
    (22, "invalid address of constant"),
    (23, "fetch from texture failed"),
    (24, "cannot fetch from a texture that is not bound"),
    (25, "incorrect use of __syncthreads()"),
    (26, "linear filtering not supported for non-float type"),
    (27, "read as normalized float not supported for data type"),
    (28, "device emulation mode and device execution mode cannot be mixed"),
    (31, "feature not yet implemented"),
    (32, "memory size or pointer value too large to fit in 32 bit"),
    (34, "CUDA driver is a stub library"),
    (35, "CUDA driver version is insufficient for CUDA runtime version"),
    (36, "API call is not supported in the installed CUDA driver"),
    (37, "invalid surface reference"),
    (43, "duplicate global variable looked up by string name"),
    (44, "duplicate texture looked up by string name"),
    (45, "duplicate surface looked up by string name"),
    (46, "CUDA-capable device(s) is/are busy or unavailable"),
    (49, "incompatible driver context"),
    (52, "__global__ function call is not configured"),
    (53, "unspecified launch failure in prior launch"),
    (65, "launch would exceed maximum depth of nested launches"),
    (66, "launch failed because kernel uses unsupported, file-scoped textures (texture objects are supported)"),
    (67, "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are supported)"),
    (68, "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth"),
    (69, "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"),
    (98, "invalid device function"),
    (100, "no CUDA-capable device is detected"),
    (101, "invalid device ordinal"),
    (102, "device doesn't have valid Grid license"),
    (103, "integrity checks failed"),
    (127, "startup failure in cuda runtime"),
    (200, "device kernel image is invalid"),
    (201, "invalid device context"),
    (205, "mapping of buffer object failed"),
    (206, "unmapping of buffer object failed"),
    (207, "array is mapped"),
    (208, "resource already mapped"),
    (209, "no kernel image is available for execution on the device"),
    (210, "resource already acquired"),
    (211, "resource not mapped"),
    (212, "resource not mapped as array"),
    (213, "resource not mapped as pointer"),
    (214, "uncorrectable ECC error encountered"),
    (215, "limit is not supported on this architecture"),
    (216, "exclusive-thread device already in use by a different thread"),
    (217, "peer access is not supported between these two devices"),
    (218, "a PTX JIT compilation failed"),
    (219, "invalid OpenGL or DirectX context"),
    (220, "uncorrectable NVLink error detected during the execution"),
    (221, "PTX JIT compiler library not found"),
    (222, "the provided PTX was compiled with an unsupported toolchain."),
    (223, "PTX JIT compilation was disabled"),
    (224, "the provided execution affinity is not supported"),
    (225, "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
    (226, "Invalid access of peer GPU memory over nvlink or a hardware error"),
    (300, "device kernel image is invalid"),
    (301, "file not found"),
    (302, "shared object symbol not found"),
    (303, "shared object initialization failed"),
    (304, "OS call failed or operation not supported on this OS"),
    (400, "invalid resource handle"),
    (401, "the operation cannot be performed in the present state"),
    (402, "attempted introspection would be semantically lossy"),
    (500, "named symbol not found"),
    (600, "device not ready"),
    (700, "an illegal memory access was encountered"),
    (701, "too many resources requested for launch"),
    (702, "the launch timed out and was terminated"),
    (703, "launch uses incompatible texturing mode"),
    (704, "peer access is already enabled"),
    (705, "peer access has not been enabled"),
    (708, "cannot set while device is active in this process"),
    (709, "context is destroyed"),
    (710, "device-side assert triggered"),
    (711, "peer mapping resources exhausted"),
    (712, "part or all of the requested memory range is already mapped"),
    (713, "pointer does not correspond to a registered memory region"),
    (714, "hardware stack error"),
    (715, "an illegal instruction was encountered"),
    (716, "misaligned address"),
    (717, "operation not supported on global/shared address space"),
    (718, "invalid program counter"),
    (719, "unspecified launch failure"),
    (720, "too many blocks in cooperative launch"),
    (721, "tensor memory not completely freed"),
    (800, "operation not permitted"),
    (801, "operation not supported"),
    (802, "system not yet initialized"),
    (803, "system has unsupported display driver / cuda driver combination"),
    (804, "forward compatibility was attempted on non supported HW"),
    (805, "MPS client failed to connect to the MPS control daemon or the MPS server"),
    (806, "the remote procedural call between the MPS server and the MPS client failed"),
    (807, "MPS server is not ready to accept new MPS client requests"),
    (808, "the hardware resources required to create MPS client have been exhausted"),
    (809, "the hardware resources required to support device connections have been exhausted"),
    (810, "the MPS client has been terminated by the server"),
    (811, "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it"),
    (812, "unsupported interaction between different versions of CUDA Dynamic Parallelism"),
    (900, "operation not permitted when stream is capturing"),
    (901, "operation failed due to a previous error during capture"),
    (902, "operation would result in a merge of separate capture sequences"),
    (903, "capture was not ended in the same stream as it began"),
    (904, "capturing stream has unjoined work"),
    (905, "dependency created on uncaptured work in another stream"),
    (906, "operation would make the legacy stream depend on a capturing blocking stream"),
    (907, "operation not permitted on an event last recorded in a capturing stream"),
    (908, "attempt to terminate a thread-local capture sequence from another thread"),
    (909, "wait operation timed out"),
    (910, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    (911, "an async error has occured in external entity outside of CUDA"),
    (912, "a kernel launch error has occurred due to cluster misconfiguration"),
    (913, "the function handle is not loaded when calling an API that requires a loaded function"),
    (914, "one or more resources passed in are not valid resource types for the operation"),
    (915, "one or more resources are insufficient or non-applicable for the operation"),
    (999, "unknown error"),
    (10000, "api failure base"),
];

/// What every other code reads.
const UNRECOGNIZED: &str = "unrecognized error code";

/// The bytes of the strings' allocation: "unrecognized error code" first, then [`STRINGS`] in
/// order, each followed by a zero byte.
pub(crate) fn table_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    for s in std::iter::once(UNRECOGNIZED).chain(STRINGS.iter().map(|e| e.1)) {
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }
    out
}

/// Where code `code`'s string starts in [`table_bytes`].
pub(crate) fn offset(code: u32) -> u64 {
    let Ok(i) = STRINGS.binary_search_by_key(&code, |e| e.0) else {
        return 0;
    };
    let before: usize = STRINGS[..i].iter().map(|e| e.1.len() + 1).sum();
    (UNRECOGNIZED.len() + 1 + before) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_finds_its_own_string() {
        let t = table_bytes();
        let at = |code: u32| {
            let o = offset(code) as usize;
            let end = o + t[o..].iter().position(|&b| b == 0).unwrap();
            String::from_utf8(t[o..end].to_vec()).unwrap()
        };
        assert_eq!(at(0), "no error");
        assert_eq!(at(9), "invalid configuration argument");
        assert_eq!(at(11), "unrecognized error code");
        assert_eq!(at(21), "invalid copy direction for memcpy");
        assert_eq!(at(999), "unknown error");
        assert_eq!(at(1000), "unrecognized error code");
        assert_eq!(at(10000), "api failure base");
        assert_eq!(at(u32::MAX), "unrecognized error code");
        assert!(STRINGS.windows(2).all(|w| w[0].0 < w[1].0));
        for &(code, s) in STRINGS {
            assert_eq!(at(code), s);
        }
    }
}
