//! A task's own slice: `sched_setattr(2)` with SCHED_OTHER and `sched_runtime` = the slice,
//! which Linux 6.12+ takes as the task's `se.slice` (clamped to 0.1-100 ms, the scenario's
//! range; `__setscheduler_params` in kernel/sched/syscalls.c sets `se.custom_slice`).
//!
//! Neither rustix nor libc wraps `sched_setattr`, so this is the one raw system call of
//! `measure`, and the one `unsafe` block of the workspace (the CLI's lints deny unsafe code
//! and allow it here only). The call reads a `struct sched_attr` of the size it is told and
//! writes nothing.
#![allow(unsafe_code)]

use anyhow::bail;

/// `struct sched_attr` as of Linux 3.14 (`SCHED_ATTR_SIZE_VER0`, 48 bytes; include/uapi/linux/
/// sched/types.h): later kernels read the fields they know and treat a shorter struct as this.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
}

const SCHED_OTHER: u32 = 0;

/// Sets the calling thread's policy to SCHED_OTHER at `nice` with its own slice `slice_ns`.
/// (`sched_nice` is part of the call: leaving it 0 would reset the task's nice.)
pub fn set_slice(nice: i32, slice_ns: u64) -> anyhow::Result<()> {
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        sched_policy: SCHED_OTHER,
        sched_nice: nice,
        sched_runtime: slice_ns,
        ..SchedAttr::default()
    };
    // SAFETY: `sched_setattr(pid 0 = this thread, attr, flags 0)` reads `attr.size` (48)
    // bytes from a live, initialized `repr(C)` struct of exactly that size, and writes no
    // memory of this process.
    let (this_thread, flags): (libc::pid_t, libc::c_uint) = (0, 0);
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_setattr,
            this_thread,
            &attr as *const SchedAttr,
            flags,
        )
    };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        bail!(
            "sched_setattr (SCHED_OTHER, nice {nice}, sched_runtime {slice_ns} ns) was refused: \
             {e}; per-task slices need Linux 6.12 or later"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sched_attr_is_the_kernels_first_version() {
        assert_eq!(std::mem::size_of::<super::SchedAttr>(), 48);
    }
}
