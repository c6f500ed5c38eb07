//! The seeds' published figures, as printed: integers at the printed precision, each with its
//! run count ("Kernel [runs]"), or every run where the thread gives them. Nothing here is
//! derived; the sources are the seed threads 000-004.

/// One published column of a contest table: Time, CPU%, Loads, LCPU% of one kernel under one
/// load, with its run count (0 when the thread does not say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContestCell {
    pub runs: u32,
    /// Time in tenths of a second (seed 004: whole seconds × 10).
    pub time: i64,
    /// CPU% in tenths.
    pub cpu: i64,
    /// Loads in tenths (integers in the seeds: × 10).
    pub loads: i64,
    /// LCPU% in tenths.
    pub lcpu: i64,
    /// Ratio in hundredths.
    pub ratio: i64,
}

const fn c(runs: u32, time: i64, cpu: i64, loads: i64, lcpu: i64, ratio: i64) -> ContestCell {
    ContestCell {
        runs,
        time,
        cpu: cpu * 10,
        loads: loads * 10,
        lcpu: lcpu * 10,
        ratio,
    }
}

/// Seed 000: Con's prio_bonus_ratio sweep, 2.5.52-mm1 on the OSDL 2-way, at PBR 0, 10, 25
/// (the default, the "2.5.52-mm1" row), 30, 50.
pub const S0_PBR: [i64; 5] = [0, 10, 25, 30, 50];
pub const S0: &[(&str, [ContestCell; 5])] = &[
    (
        "noload",
        [
            c(3, 406, 180, 0, 0, 112),
            c(3, 402, 180, 0, 0, 111),
            c(8, 397, 180, 0, 0, 110),
            c(3, 397, 181, 0, 0, 110),
            c(3, 400, 179, 0, 0, 110),
        ],
    ),
    (
        "cacherun",
        [
            c(3, 376, 194, 0, 0, 104),
            c(3, 372, 194, 0, 0, 103),
            c(7, 369, 194, 0, 0, 102),
            c(3, 369, 194, 0, 0, 102),
            c(3, 367, 195, 0, 0, 101),
        ],
    ),
    (
        "process_load",
        [
            c(3, 475, 152, 9, 41, 131),
            c(3, 482, 147, 10, 47, 133),
            c(7, 490, 144, 10, 50, 135),
            c(3, 501, 141, 12, 53, 138),
            c(3, 462, 154, 8, 39, 128),
        ],
    ),
    (
        "ctar_load",
        [
            c(3, 446, 165, 0, 5, 123),
            c(3, 455, 164, 0, 7, 126),
            c(7, 555, 156, 1, 10, 153),
            c(3, 520, 154, 1, 10, 144),
            c(3, 575, 158, 1, 10, 159),
        ],
    ),
    (
        "xtar_load",
        [
            c(3, 606, 125, 0, 7, 167),
            c(3, 617, 125, 1, 8, 170),
            c(7, 774, 122, 1, 8, 214),
            c(3, 748, 128, 1, 9, 207),
            c(3, 745, 130, 1, 8, 206),
        ],
    ),
    (
        "io_load",
        [
            c(3, 1203, 94, 22, 24, 332),
            c(3, 1236, 91, 20, 23, 341),
            c(7, 805, 108, 10, 19, 222),
            c(3, 958, 84, 14, 20, 265),
            c(3, 768, 114, 11, 21, 212),
        ],
    ),
    (
        "io_other",
        [
            c(3, 1428, 94, 27, 26, 394),
            c(3, 1165, 93, 22, 26, 322),
            c(7, 601, 131, 7, 18, 166),
            c(3, 728, 115, 8, 19, 201),
            c(3, 998, 97, 15, 22, 276),
        ],
    ),
    (
        "read_load",
        [
            c(3, 483, 154, 2, 3, 133),
            c(3, 495, 150, 5, 6, 137),
            c(7, 499, 149, 5, 6, 138),
            c(3, 507, 148, 5, 6, 140),
            c(3, 498, 149, 5, 6, 138),
        ],
    ),
    (
        "list_load",
        [
            c(3, 437, 168, 0, 7, 121),
            c(3, 440, 167, 0, 8, 122),
            c(7, 438, 167, 0, 9, 121),
            c(3, 440, 166, 0, 9, 122),
            c(3, 438, 167, 0, 9, 121),
        ],
    ),
    (
        "mem_load",
        [
            c(3, 788, 98, 33, 2, 218),
            c(3, 940, 82, 35, 2, 260),
            c(7, 711, 123, 36, 2, 196),
            c(3, 1086, 74, 36, 2, 300),
            c(3, 1062, 75, 36, 2, 293),
        ],
    ),
];

/// Seed 003: contest v0.50 on a uniprocessor, every kernel of the thread in its order.
pub const S3_KERNELS: [&str; 6] = [
    "2.4.19",
    "2.5.38",
    "2.5.39",
    "2.5.40",
    "2.5.40-mm1",
    "2.5.40-mm2",
];
/// (v0.50 load name, the v0.61 model it is run as, a cell per kernel of [`S3_KERNELS`]).
pub const S3: &[(&str, &str, [ContestCell; 6])] = &[
    (
        "noload",
        "noload",
        [
            c(3, 677, 98, 0, 0, 101),
            c(3, 720, 93, 0, 0, 107),
            c(2, 722, 93, 0, 0, 107),
            c(1, 725, 93, 0, 0, 108),
            c(1, 729, 93, 0, 0, 109),
            c(1, 722, 93, 0, 0, 107),
        ],
    ),
    (
        "process_load",
        "process_load",
        [
            c(3, 1065, 59, 112, 43, 159),
            c(3, 895, 74, 34, 28, 133),
            c(2, 912, 73, 36, 28, 136),
            c(2, 828, 80, 25, 23, 123),
            c(2, 869, 77, 30, 25, 129),
            c(1, 980, 69, 45, 33, 146),
        ],
    ),
    (
        "io_load",
        "io_load",
        [
            c(3, 4926, 14, 38, 10, 733),
            c(1, 40000, 1, 500, 1, 5955),
            c(2, 4239, 18, 30, 11, 631),
            c(1, 3157, 25, 22, 10, 470),
            c(1, 3262, 24, 23, 11, 486),
            c(2, 2080, 38, 12, 10, 310),
        ],
    ),
    (
        "mem_load",
        "mem_load",
        [
            c(3, 1000, 72, 33, 3, 149),
            c(3, 1073, 70, 34, 3, 160),
            c(2, 1031, 72, 31, 3, 153),
            c(2, 1025, 72, 31, 3, 153),
            c(2, 1077, 68, 29, 2, 160),
            c(2, 1651, 44, 38, 2, 246),
        ],
    ),
    (
        "tarc_load",
        "ctar_load",
        [
            c(2, 1065, 70, 1, 8, 159),
            c(1, 972, 79, 1, 6, 145),
            c(1, 918, 83, 1, 6, 137),
            c(1, 969, 80, 1, 6, 144),
            c(1, 944, 81, 1, 6, 141),
            c(1, 919, 82, 1, 6, 137),
        ],
    ),
    (
        "tarx_load",
        "xtar_load",
        [
            c(1, 1324, 55, 2, 9, 197),
            c(1, 1205, 63, 2, 8, 179),
            c(1, 1083, 69, 1, 6, 161),
            c(1, 1107, 68, 1, 6, 165),
            c(1, 1915, 39, 3, 7, 285),
            c(1, 1881, 39, 3, 7, 280),
        ],
    ),
    (
        "read_load",
        "read_load",
        [
            c(2, 1341, 54, 14, 5, 200),
            c(2, 1005, 76, 9, 5, 150),
            c(2, 1013, 74, 14, 6, 151),
            c(1, 1015, 73, 13, 5, 151),
            c(1, 1045, 74, 9, 5, 156),
            c(1, 1027, 75, 7, 4, 153),
        ],
    ),
    (
        "lslr_load",
        "list_load",
        [
            c(1, 898, 77, 1, 20, 134),
            c(1, 991, 71, 1, 20, 148),
            c(1, 1013, 70, 2, 24, 151),
            c(1, 970, 72, 1, 21, 144),
            c(1, 966, 73, 1, 22, 144),
            c(1, 943, 75, 1, 21, 140),
        ],
    ),
];

/// Seed 003's second table: 2.5.40-mm2v (mm2 with Con's variable vm_swappiness), Time in
/// tenths with its run count, per v0.50 load (its mm1 and mm2 rows repeat the first table).
pub const S3_MM2V: &[(&str, u32, i64)] = &[
    ("noload", 2, 731),
    ("process_load", 2, 856),
    ("tarc_load", 2, 912),
    ("tarx_load", 2, 1746),
    ("io_load", 3, 2540),
    ("read_load", 2, 1050),
    ("lslr_load", 2, 979),
    ("mem_load", 3, 1181),
];

/// Seed 004: John Lee's contest on a dual P3-800, 2.6.4 and 2.6.4-EBS (Time in whole seconds,
/// CPU% and LCPU% to a tenth, Ratio against each kernel's own no_load).
const fn c4(time_s: i64, cpu_x10: i64, loads: i64, lcpu_x10: i64, ratio: i64) -> ContestCell {
    ContestCell {
        runs: 3,
        time: time_s * 10,
        cpu: cpu_x10,
        loads: loads * 10,
        lcpu: lcpu_x10,
        ratio,
    }
}
pub const S4: &[(&str, &str, [ContestCell; 2])] = &[
    (
        "no_load",
        "noload",
        [c4(86, 1686, 0, 256, 100), c4(82, 1768, 0, 159, 100)],
    ),
    (
        "cacherun",
        "cacherun",
        [c4(85, 1706, 0, 271, 99), c4(80, 1812, 0, 150, 98)],
    ),
    (
        "process_load",
        "process_load",
        [c4(103, 1408, 34, 544, 120), c4(103, 1398, 35, 534, 126)],
    ),
    (
        "ctar_load",
        "ctar_load",
        [c4(100, 1530, 0, 10, 116), c4(98, 1571, 0, 0, 120)],
    ),
    (
        "xtar_load",
        "xtar_load",
        [c4(95, 1600, 0, 63, 110), c4(92, 1630, 0, 54, 112)],
    ),
    (
        "io_load",
        "io_load",
        [c4(312, 510, 23, 121, 363), c4(200, 770, 14, 114, 244)],
    ),
    (
        "read_load",
        "read_load",
        [c4(116, 1353, 6, 78, 135), c4(111, 1396, 6, 81, 135)],
    ),
    (
        "2list_load",
        "list_load",
        [c4(122, 1238, 0, 107, 142), c4(123, 1211, 0, 81, 150)],
    ),
    (
        "mem_load",
        "mem_load",
        [c4(102, 1588, 31, 29, 119), c4(103, 1592, 31, 29, 126)],
    ),
    (
        "dbench_load",
        "dbench_load",
        [c4(203, 764, 2, 456, 236), c4(150, 1040, 1, 220, 183)],
    ),
];

/// Seed 000, Scott Thomason's raw contest runs (2.5.52-mm2, dual AMD MP2000, qmail compiled
/// instead of the kernel): per load, three runs of (Time in hundredths of s, LoadRuns,
/// LoadCPU%), first with the default tunables, then with his tweak.
pub type ScottRun = (i64, i64, i64);
pub const SCOTT: &[(&str, [ScottRun; 3], [ScottRun; 3])] = &[
    (
        "noload",
        [(1882, 0, 0), (1867, 0, 0), (1856, 0, 0)],
        [(1862, 0, 0), (1870, 0, 0), (1895, 0, 0)],
    ),
    (
        "process_load",
        [(2512, 18, 74), (2057, 10, 49), (2616, 20, 77)],
        [(2754, 25, 81), (2737, 25, 82), (2744, 24, 83)],
    ),
    (
        "ctar_load",
        [(3273, 206, 31), (2448, 164, 20), (6820, 428, 14)],
        [(2753, 181, 30), (7384, 498, 19), (2368, 155, 16)],
    ),
    (
        "xtar_load",
        [(3051, 79, 26), (3133, 83, 24), (2897, 85, 25)],
        [(3261, 74, 20), (2515, 58, 24), (3176, 65, 23)],
    ),
    (
        "io_load",
        [(3713, 125, 40), (3206, 159, 55), (2925, 126, 48)],
        [(4257, 204, 46), (3549, 112, 33), (3340, 150, 45)],
    ),
    (
        "read_load",
        [(3120, 1147, 99), (3011, 1044, 95), (3103, 1115, 97)],
        [(2266, 312, 44), (2311, 517, 63), (2126, 424, 57)],
    ),
    (
        "list_load",
        [(2233, 0, 4), (1949, 0, 8), (2181, 0, 8)],
        [(2163, 0, 4), (2161, 0, 4), (2029, 0, 4)],
    ),
    (
        "mem_load",
        [(3970, 88, 14), (4746, 97, 11), (4705, 96, 11)],
        [(4448, 93, 12), (4215, 90, 13), (5110, 98, 12)],
    ),
];
/// Scott's tweak (seed 000, 25 Dec 2002, as corrected): the other tunables at their defaults.
pub const SCOTT_TWEAK: &[(&str, i64)] = &[
    ("starvation_limit", 3000),
    ("interactive_delta", 4),
    ("max_timeslice", 200),
    ("min_timeslice", 20),
];

/// Seed 000, Scott's sleep probe under "considerable load": elapsed time of 1000 sleep(0.2)
/// calls in ms (the script's 1 ms bins) and the count in each bin.
pub const SCOTT_SLEEP: &[(i64, i64)] = &[
    (192, 1),
    (199, 1),
    (200, 10),
    (201, 201),
    (202, 53),
    (203, 25),
    (204, 22),
    (205, 21),
    (206, 34),
    (207, 29),
    (208, 29),
    (209, 100),
    (210, 250),
    (211, 120),
    (212, 35),
    (213, 16),
    (214, 17),
    (215, 14),
    (216, 9),
    (217, 1),
    (218, 3),
    (219, 3),
    (220, 1),
    (222, 1),
    (233, 1),
    (303, 1),
    (304, 1),
    (385, 1),
];

/// Seed 001: chat_c messages per second, every run given.
pub struct ChatRuns {
    /// Who measured, on what.
    pub source: &'static str,
    pub cpus: u32,
    pub rooms: i64,
    pub messages: i64,
    /// (kernel label, policy id standing in for it, runs at nice 0, runs at nice 19).
    pub kernels: [(&'static str, &'static str, [i64; 3], [i64; 3]); 2],
}

pub const INGO: ChatRuns = ChatRuns {
    source: "Ingo Molnar, 2-way 466 MHz Celeron, `chat_c 127.0.0.1 10 1000`",
    cpus: 2,
    rooms: 10,
    messages: 1000,
    kernels: [
        (
            "2.5.2-pre10",
            "linux-2.5-o1",
            [124_676, 102_244, 115_841],
            [214_626, 220_876, 225_529],
        ),
        (
            "2.5.2-pre10 + Davide's patch",
            "libenzi-d1",
            [123_103, 105_122, 112_901],
            [109_337, 122_077, 105_296],
        ),
    ],
};

pub const DAVIDE: ChatRuns = ChatRuns {
    source: "Davide Libenzi, AMD Athlon 1 GHz (one CPU), `chat_c 127.0.0.1 20 1000`",
    cpus: 1,
    rooms: 20,
    messages: 1000,
    kernels: [
        (
            "2.5.2-pre10",
            "linux-2.5-o1",
            [90_066, 88_234, 92_612],
            [135_684, 127_456, 132_420],
        ),
        (
            "2.5.2-pre10 + swap_cnt patch",
            "libenzi-d1",
            [118_386, 114_464, 117_972],
            [125_236, 123_988, 128_048],
        ),
    ],
};

/// Seed 002: Mike Galbraith's make -j30 bzImage on a UP P3-500: stock 2.5.64 "~8m30s", Jim
/// Houston's scheduler "adds a full minute". In tenths of a second, read as exact to 10 s.
pub const MAKE_J30: (i64, i64) = (5100, 5700);
pub const MAKE_J30_UNIT: i64 = 100;

/// Seed 002: irman on the same box: stock 2.5.64 runs 10^6 iterations in "~2 minutes", 0.12 s
/// per 1000 on average; the self-tuning scheduler settles at "~1 sec" per 1000 (later 5 s).
/// Average time per 1000 iterations in ms, with the unit each is printed to (0.12 s: 10 ms;
/// ~1 s: 1000 ms).
pub const IRMAN_PER_1000: (i64, i64) = (120, 1000);
pub const IRMAN_UNITS: (i64, i64) = (10, 1000);

/// One published contest figure to show beside a live run: means over `runs` runs, tenths
/// (Ratio in hundredths), None where the seed does not print the column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    pub load: &'static str,
    pub runs: u32,
    pub time: i64,
    pub cpu: Option<i64>,
    pub loads: Option<i64>,
    pub lcpu: Option<i64>,
    pub ratio: Option<i64>,
    /// Lowest and highest Time where the seed gives every run.
    pub time_range: Option<(i64, i64)>,
    /// Seed 004 prints Time in whole seconds: the tenths are then always 0 and not shown.
    pub whole_seconds: bool,
}

/// The published column a configuration reproduces, if a seed ran it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Which seed, kernel and machine, e.g. "seed 000: 2.5.52-mm1, prio_bonus_ratio 0, OSDL 2-way".
    pub source: String,
    pub figures: Vec<Figure>,
}

impl Column {
    pub fn figure(&self, load: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.load == load)
    }
}

fn from_cell(load: &'static str, c: &ContestCell, ratio: bool) -> Figure {
    Figure {
        whole_seconds: false,
        load,
        runs: c.runs,
        time: c.time,
        cpu: Some(c.cpu),
        loads: Some(c.loads),
        lcpu: Some(c.lcpu),
        ratio: ratio.then_some(c.ratio),
        time_range: None,
    }
}

/// The seed column matching a contest configuration: the policy with its tunables (only
/// values that differ from the policy's defaults count) on `cpus` CPUs. seed 000's sweep and
/// Scott's tweak (2.5.52-mm1, 2 CPUs), seed 003's 2.4.19 and 2.5.40-mm2 (1 CPU, 2.5.52-mm1
/// standing in for the latter) and seed 004's 2.6.4 and EBS (2 CPUs).
pub fn contest_column(policy: &schedlab_engine::scenario::PolicySpec, cpus: u32) -> Option<Column> {
    let specs = schedlab_policies::find(&policy.id)?.tunables;
    let changed: Vec<(&str, i64)> = policy
        .tunables
        .iter()
        .filter(|(k, v)| {
            specs
                .iter()
                .any(|s| s.key == k.as_str() && s.default != **v)
        })
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    let pbr_default = specs
        .iter()
        .find(|s| s.key == "prio_bonus_ratio")
        .map(|s| s.default);
    match (policy.id.as_str(), cpus) {
        ("linux-2.5-o1", 2) => {
            let mut tweak: Vec<(&str, i64)> = SCOTT_TWEAK.to_vec();
            schedlab_engine::sort::sort_by(&mut tweak, Ord::cmp);
            if changed == tweak {
                let figures = SCOTT
                    .iter()
                    .map(|(load, _, runs)| {
                        let t: Vec<i64> = runs.iter().map(|r| (r.0 + 5) / 10).collect();
                        let mean = |f: &dyn Fn(&ScottRun) -> i64| {
                            (runs.iter().map(f).sum::<i64>() * 10 + 1) / 3
                        };
                        Figure {
                            load,
                            runs: 3,
                            time: (t.iter().sum::<i64>() + 1) / 3,
                            cpu: None,
                            loads: Some(mean(&|r| r.1)),
                            lcpu: Some(mean(&|r| r.2)),
                            ratio: None,
                            time_range: t.iter().min().copied().zip(t.iter().max().copied()),
                            whole_seconds: false,
                        }
                    })
                    .collect();
                return Some(Column {
                    source: "seed 000: Scott Thomason's tweak on 2.5.52-mm2, dual AMD MP2000 (qmail build, not the kernel)".into(),
                    figures,
                });
            }
            let pbr = match changed.as_slice() {
                [] => pbr_default?,
                [("prio_bonus_ratio", v)] => *v,
                _ => return None,
            };
            let i = S0_PBR.iter().position(|p| *p == pbr)?;
            Some(Column {
                source: format!("seed 000: 2.5.52-mm1, prio_bonus_ratio {pbr}, OSDL 2-way"),
                figures: S0
                    .iter()
                    .map(|(l, cs)| from_cell(l, &cs[i], true))
                    .collect(),
            })
        }
        (id @ ("linux-2.4" | "linux-2.5-o1"), 1) if changed.is_empty() => {
            let (i, name) = if id == "linux-2.4" {
                (0, "2.4.19")
            } else {
                (S3_KERNELS.len() - 1, "2.5.40-mm2 (2.5.52-mm1 standing in)")
            };
            Some(Column {
                source: format!("seed 003: {name}, contest v0.50, uniprocessor"),
                figures: S3
                    .iter()
                    .map(|(_, l, cs)| from_cell(l, &cs[i], false))
                    .collect(),
            })
        }
        (id @ ("linux-2.6-o1" | "ebs"), 2) if changed.is_empty() => {
            let (i, name) = if id == "ebs" {
                (1, "2.6.4-EBS")
            } else {
                (0, "2.6.4")
            };
            Some(Column {
                source: format!("seed 004: {name}, dual P3-800"),
                figures: S4
                    .iter()
                    .map(|(_, l, cs)| from_cell(l, &cs[i], true))
                    .collect(),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_engine::scenario::PolicySpec;

    fn spec(id: &str, t: &[(&str, i64)]) -> PolicySpec {
        PolicySpec {
            id: id.into(),
            tunables: t.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
        }
    }

    #[test]
    fn columns_match_machine_kernel_and_tunables() {
        let c = contest_column(&spec("linux-2.5-o1", &[("prio_bonus_ratio", 0)]), 2).unwrap();
        assert!(c.source.contains("prio_bonus_ratio 0"));
        assert_eq!(c.figure("ctar_load").unwrap().time, 446);
        // The default is the 2.5.52-mm1 row, 8 runs under noload.
        let c = contest_column(&spec("linux-2.5-o1", &[("prio_bonus_ratio", 25)]), 2).unwrap();
        assert_eq!(c.figure("noload").unwrap().runs, 8);
        assert!(contest_column(&spec("linux-2.5-o1", &[("prio_bonus_ratio", 20)]), 2).is_none());
        assert!(contest_column(&spec("linux-2.5-o1", &[("prio_bonus_ratio", 0)]), 4).is_none());
        let c = contest_column(&spec("linux-2.4", &[]), 1).unwrap();
        assert_eq!(c.figure("ctar_load").unwrap().time, 1065);
        let c = contest_column(&spec("ebs", &[]), 2).unwrap();
        assert_eq!(c.figure("io_load").unwrap().ratio, Some(244));
        // Scott's tweak, in any order: ctar_load's three runs range 23.7 to 73.8 s.
        let t: Vec<(&str, i64)> = SCOTT_TWEAK.iter().rev().copied().collect();
        let c = contest_column(&spec("linux-2.5-o1", &t), 2).unwrap();
        assert_eq!(c.figure("ctar_load").unwrap().time_range, Some((237, 738)));
        assert!(contest_column(&spec("fifo", &[]), 2).is_none());
    }
}
