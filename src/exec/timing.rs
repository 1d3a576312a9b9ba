//! Where a request's time went, for the `Server-Timing` header: inside [`scope`], the runner
//! records each external command's time as `device`, and other layers add their stages
//! (`parse`, `encode`). Outside a scope, recording does nothing. Work moved to another task
//! (a blocking thread) is recorded by the task that awaits it.

use std::cell::RefCell;
use std::future::Future;
use std::time::Duration;

tokio::task_local! {
    static STAGES: RefCell<Vec<(&'static str, Duration)>>;
}

/// Adds `took` to `stage` of the current request, if one is being timed.
pub fn record(stage: &'static str, took: Duration) {
    let _ = STAGES.try_with(|s| s.borrow_mut().push((stage, took)));
}

/// Runs `work`, returning its output and the time of each stage (summed per stage, in the
/// order first seen).
pub async fn scope<F: Future>(work: F) -> (F::Output, Vec<(&'static str, Duration)>) {
    let (out, stages) = STAGES
        .scope(RefCell::new(Vec::new()), async move {
            let out = work.await;
            let stages = STAGES.with(|s| s.take());
            (out, stages)
        })
        .await;
    let mut summed: Vec<(&'static str, Duration)> = Vec::new();
    for (name, d) in stages {
        match summed.iter_mut().find(|(n, _)| *n == name) {
            Some((_, total)) => *total += d,
            None => summed.push((name, d)),
        }
    }
    (out, summed)
}

/// The `Server-Timing` header value: each stage and the total, in milliseconds.
pub fn header(stages: &[(&'static str, Duration)], total: Duration) -> String {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mut parts: Vec<String> = stages
        .iter()
        .map(|(n, d)| format!("{n};dur={:.1}", ms(*d)))
        .collect();
    parts.push(format!("total;dur={:.1}", ms(total)));
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn stages_are_summed_inside_a_scope_only() {
        record("device", Duration::from_millis(5));
        let ((), stages) = scope(async {
            record("device", Duration::from_millis(2));
            record("parse", Duration::from_millis(1));
            record("device", Duration::from_millis(3));
        })
        .await;
        assert_eq!(
            stages,
            vec![
                ("device", Duration::from_millis(5)),
                ("parse", Duration::from_millis(1))
            ]
        );
        assert_eq!(
            header(&stages, Duration::from_millis(9)),
            "device;dur=5.0, parse;dur=1.0, total;dur=9.0"
        );
    }
}
