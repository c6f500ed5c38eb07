//! A scenario's task groups for real: one cgroup per group with the cpu controller, under this
//! process's own cgroup, removed again on every way out.
//!
//! cgroup v2 first: the groups go into a directory `schedlab-measure-<pid>-<ns>` under this
//! process's cgroup, each with `cpu.weight` as the scenario gives it. Where the cpu controller
//! is not in the v2 hierarchy (a hybrid mount, as systemd's legacy layouts and some container
//! hosts have), a cgroup v1 hierarchy with the cpu controller does the same with `cpu.shares`
//! = `cpu.weight`·1024/100, the very value v2's `cpu.weight` sets (`sched_weight_from_cgroup`
//! writes `tg->shares`, which v1's `cpu.shares` writes directly). Neither available: the
//! measurement is refused with what is missing. Task processes join their group themselves
//! before the start (`cgroup.procs`); forked ones inherit it. The [`Cgroups`] guard removes the
//! directories, children first, once the processes are reaped.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use schedlab::policies::cfs::shares_from_cpu_weight;
use schedlab::Scenario;

/// Where groups can be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// This process's cgroup directory in the hierarchy with the cpu controller.
    pub own: PathBuf,
    pub v2: bool,
}

/// The `/proc/self/cgroup` path of this process in the v2 hierarchy (`0::<path>`) and in the v1
/// hierarchy whose controllers include `cpu`.
pub fn own_paths(proc_cgroup: &str) -> (Option<String>, Option<String>) {
    let (mut v2, mut v1) = (None, None);
    for line in proc_cgroup.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(id), Some(ctrl), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        if id == "0" && ctrl.is_empty() {
            v2 = Some(path.to_string());
        } else if ctrl.split(',').any(|c| c == "cpu") {
            v1 = Some(path.to_string());
        }
    }
    (v2, v1)
}

/// Mount points from `/proc/self/mountinfo`: the cgroup2 one and the v1 one with `cpu` among
/// its super options.
pub fn mounts(mountinfo: &str) -> (Option<PathBuf>, Option<PathBuf>) {
    let (mut v2, mut v1) = (None, None);
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let point = left.split(' ').nth(4).map(PathBuf::from);
        let mut r = right.split(' ');
        let fstype = r.next().unwrap_or("");
        let _source = r.next();
        let options = r.next().unwrap_or("");
        match fstype {
            "cgroup2" if v2.is_none() => v2 = point,
            "cgroup" if options.split(',').any(|o| o == "cpu") => v1 = point,
            _ => {}
        }
    }
    (v2, v1)
}

fn join(mount: &Path, path: &str) -> PathBuf {
    mount.join(path.trim_start_matches('/'))
}

/// Where this machine lets this process make groups with the cpu controller, or a sentence
/// naming what is missing.
pub fn locate() -> Result<Place, String> {
    let proc_cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .map_err(|e| format!("/proc/self/cgroup cannot be read ({e})"))?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("/proc/self/mountinfo cannot be read ({e})"))?;
    let (own_v2, own_v1) = own_paths(&proc_cgroup);
    let (mount_v2, mount_v1) = mounts(&mountinfo);
    let mut missing = Vec::new();
    match (&mount_v2, &own_v2) {
        (Some(m), Some(p)) => {
            let own = join(m, p);
            let controllers = std::fs::read_to_string(own.join("cgroup.controllers"))
                .unwrap_or_default();
            if controllers.split_whitespace().any(|c| c == "cpu") {
                return writable(own, true);
            }
            missing.push(format!(
                "cgroup v2 (mounted at {}) does not offer the cpu controller in {} (its \
                 cgroup.controllers: {:?})",
                m.display(),
                own.display(),
                controllers.trim()
            ));
        }
        _ => missing.push("cgroup v2 is not mounted".to_string()),
    }
    match (&mount_v1, &own_v1) {
        (Some(m), Some(p)) => return writable(join(m, p), false),
        _ => missing.push("no cgroup v1 hierarchy has the cpu controller".to_string()),
    }
    Err(missing.join("; "))
}

fn writable(own: PathBuf, v2: bool) -> Result<Place, String> {
    let probe = own.join(format!("schedlab-probe-{}", std::process::id()));
    match std::fs::create_dir(&probe) {
        Ok(()) => {
            let _ = std::fs::remove_dir(&probe);
            Ok(Place { own, v2 })
        }
        Err(e) => Err(format!(
            "this process may not create cgroups in {} ({e}); run as a user who may",
            own.display()
        )),
    }
}

/// The groups of one measurement; dropping it removes them (after the processes are gone).
#[derive(Debug)]
pub struct Cgroups {
    base: PathBuf,
    /// Each scenario group's directory, in the scenario's order (parents first).
    dirs: Vec<PathBuf>,
    /// v2: `own/cgroup.subtree_control` had no cpu and this measurement added it.
    enabled_in_own: Option<PathBuf>,
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {text:?} to {}", path.display()))
}

impl Cgroups {
    /// Makes the scenario's groups; `None` when it has none.
    pub fn create(s: &Scenario) -> anyhow::Result<Option<Cgroups>> {
        if s.groups.is_empty() {
            return Ok(None);
        }
        let place = locate().map_err(|why| {
            crate::input::InvalidInput(format!(
                "groups: task groups are measured in cgroups with the cpu controller, and {why}"
            ))
        })?;
        if place.v2 {
            // cgroup v2's "no internal processes": a group with child groups holds no task.
            for (i, t) in s.tasks.iter().enumerate() {
                if let Some(g) = &t.group {
                    if s.groups.iter().any(|c| c.parent.as_ref() == Some(g)) {
                        return Err(crate::input::InvalidInput(format!(
                            "tasks[{i}].group: {g:?} has child groups, and cgroup v2 keeps \
                             tasks out of a group whose children share its CPU time"
                        ))
                        .into());
                    }
                }
            }
        }
        let base = place.own.join(format!(
            "schedlab-measure-{}-{}",
            std::process::id(),
            super::worker::mono_ns()
        ));
        std::fs::create_dir(&base).with_context(|| format!("creating {}", base.display()))?;
        let mut cg = Cgroups {
            base,
            dirs: Vec::new(),
            enabled_in_own: None,
        };
        if place.v2 {
            let own_ctl = place.own.join("cgroup.subtree_control");
            let had = std::fs::read_to_string(&own_ctl).unwrap_or_default();
            if !had.split_whitespace().any(|c| c == "cpu") {
                write(&own_ctl, "+cpu").context(
                    "enabling the cpu controller for this process's cgroup's children (cgroup \
                     v2 allows it only in a cgroup without processes of its own)",
                )?;
                cg.enabled_in_own = Some(own_ctl);
            }
            write(&cg.base.join("cgroup.subtree_control"), "+cpu")?;
        }
        for (i, g) in s.groups.iter().enumerate() {
            let parent = match &g.parent {
                Some(p) => s
                    .group_index(p)
                    .and_then(|j| cg.dirs.get(j).cloned())
                    .context("a group's parent")?,
                None => cg.base.clone(),
            };
            let dir = parent.join(format!("g{i}"));
            std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
            cg.dirs.push(dir.clone());
            if place.v2 {
                write(&dir.join("cpu.weight"), &g.cpu_weight.to_string())?;
                if s.groups.iter().any(|c| c.parent.as_ref() == Some(&g.name)) {
                    write(&dir.join("cgroup.subtree_control"), "+cpu")?;
                }
            } else {
                let shares = shares_from_cpu_weight(g.cpu_weight);
                write(&dir.join("cpu.shares"), &shares.to_string())?;
            }
        }
        Ok(Some(cg))
    }

    /// The file a task process of group `name` writes itself into.
    pub fn procs(&self, s: &Scenario, name: &str) -> Option<PathBuf> {
        let i = s.group_index(name)?;
        Some(self.dirs.get(i)?.join("cgroup.procs"))
    }
}

impl Drop for Cgroups {
    fn drop(&mut self) {
        // Children first; a cgroup whose last process was just reaped may be busy a moment.
        for dir in self.dirs.iter().rev().chain([&self.base]) {
            for _ in 0..50 {
                match std::fs::remove_dir(dir) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        std::thread::sleep(std::time::Duration::from_millis(10))
                    }
                    _ => break,
                }
            }
        }
        if let Some(ctl) = &self.enabled_in_own {
            let _ = std::fs::write(ctl, "-cpu");
        }
    }
}

/// Joins the cgroup whose `cgroup.procs` is `procs` (the calling process, "0").
pub fn join_self(procs: &Path) -> anyhow::Result<()> {
    if !procs.exists() {
        bail!("the task group's cgroup {} is gone", procs.display());
    }
    write(procs, "0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_cpu_hierarchies() {
        let hybrid = "9:name=systemd:/\n4:memory:/x\n2:cpuacct:/\n1:cpu:/jobs\n0::/\n";
        assert_eq!(
            own_paths(hybrid),
            (Some("/".to_string()), Some("/jobs".to_string()))
        );
        let combined = "3:cpu,cpuacct:/user.slice\n0::/user.slice/session-1.scope\n";
        assert_eq!(own_paths(combined).1.as_deref(), Some("/user.slice"));
        let mountinfo = "\
30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
31 30 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
35 30 0:31 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
36 30 0:32 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
37 30 0:33 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
";
        assert_eq!(
            mounts(mountinfo),
            (
                Some(PathBuf::from("/sys/fs/cgroup/unified")),
                Some(PathBuf::from("/sys/fs/cgroup/cpu"))
            )
        );
    }
}
