//! What a server process uses over a window (CPU and wake-ups per thread group, from
//! `schedstat` and `voluntary_ctxt_switches`; the user/kernel split from 10 ms ticks), and
//! the medians of several runs.

use std::time::{Duration, Instant};

use crate::support::{thread_use, user_kernel};

/// What a process used over a window.
pub struct Usage {
    /// Per thread group, highest CPU first: CPU % of one core, wake-ups per second.
    pub threads: Vec<(String, f64, f64)>,
    /// CPU % of one core: the sum of the threads' (nanosecond clocks; the process's
    /// own figure in `/proc/<pid>/stat` counts 10 ms ticks).
    pub cpu_pct: f64,
    /// The sum of the threads' wake-ups per second.
    pub wakeups: f64,
    /// The process's CPU % of one core in user space and in the kernel (10 ms ticks).
    pub user_kernel: (f64, f64),
}

/// What process `pid` uses over the next `secs` seconds, and the window's length.
pub fn window(pid: &str, secs: u64) -> (Usage, Duration) {
    let (threads0, split0, t0) = (thread_use(pid), user_kernel(pid), Instant::now());
    std::thread::sleep(Duration::from_secs(secs));
    let (threads1, split1, wall) = (thread_use(pid), user_kernel(pid), t0.elapsed());
    let pct = |d: Duration| d.as_secs_f64() / wall.as_secs_f64() * 100.0;
    let mut threads: Vec<(String, f64, f64)> = threads1
        .into_iter()
        .map(|(name, t1)| {
            let t0 = threads0.get(&name).copied().unwrap_or_default();
            let wakeups = t1.wakeups.saturating_sub(t0.wakeups) as f64 / wall.as_secs_f64();
            (name, pct(t1.cpu.saturating_sub(t0.cpu)), wakeups)
        })
        .filter(|(_, p, w)| *p > 0.0 || *w > 0.0)
        .collect();
    threads.sort_by(|a, b| b.1.total_cmp(&a.1));
    let usage = Usage {
        cpu_pct: threads.iter().map(|t| t.1).sum(),
        wakeups: threads.iter().map(|t| t.2).sum(),
        threads,
        user_kernel: (
            pct(split1.0.saturating_sub(split0.0)),
            pct(split1.1.saturating_sub(split0.1)),
        ),
    };
    (usage, wall)
}

/// Prints `u`'s wake-ups, CPU per thread group and user/kernel split.
pub fn print_threads(u: &Usage) {
    let t: Vec<String> = u
        .threads
        .iter()
        .take(12)
        .map(|(n, p, w)| format!("{n} {p:.3} ({w:.0}/s)"))
        .collect();
    println!(
        "    {:.0} wake-ups/s; per thread group, % of one core (wake-ups/s): {}",
        u.wakeups,
        t.join(", ")
    );
    println!(
        "    user space {:.2} %, kernel {:.2} % of one core (10 ms ticks)",
        u.user_kernel.0, u.user_kernel.1
    );
}

/// Median, min and max.
pub fn spread(v: &[f64]) -> (f64, f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (s[s.len() / 2], s[0], s[s.len() - 1])
}

/// Medians of `runs`.
pub fn summary(label: &str, runs: &[Usage], threads: bool) {
    let cpus: Vec<f64> = runs.iter().map(|u| u.cpu_pct).collect();
    let wakeups: Vec<f64> = runs.iter().map(|u| u.wakeups).collect();
    let (m, lo, hi) = spread(&cpus);
    println!(
        "    {label}, {} runs: median {m:.2} %, range {lo:.2}..{hi:.2} %; wake-ups/s median {:.0}",
        runs.len(),
        spread(&wakeups).0
    );
    if !threads {
        return;
    }
    let mut names: Vec<&str> = runs
        .iter()
        .flat_map(|u| u.threads.iter().map(|t| t.0.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut medians: Vec<(&str, f64, f64)> = names
        .into_iter()
        .map(|n| {
            let of = |pick: fn(&(String, f64, f64)) -> f64| {
                let v: Vec<f64> = runs
                    .iter()
                    .map(|u| u.threads.iter().find(|t| t.0 == n).map_or(0.0, pick))
                    .collect();
                spread(&v).0
            };
            (n, of(|t| t.1), of(|t| t.2))
        })
        .collect();
    medians.sort_by(|a, b| b.1.total_cmp(&a.1));
    let t: Vec<String> = medians
        .iter()
        .take(14)
        .map(|(n, p, w)| format!("{n} {p:.3} ({w:.0}/s)"))
        .collect();
    println!("    {label}, medians per thread group: {}", t.join(", "));
    let user: Vec<f64> = runs.iter().map(|u| u.user_kernel.0).collect();
    let kernel: Vec<f64> = runs.iter().map(|u| u.user_kernel.1).collect();
    println!(
        "    {label}, medians: user space {:.2} %, kernel {:.2} % of one core",
        spread(&user).0,
        spread(&kernel).0
    );
}
