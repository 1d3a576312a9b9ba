//! A window's files: reserved among its run's artifacts when it starts, written and committed
//! when it stops (the series and summary as JSON, the plot as SVG and PNG).

use crate::api::wire::perf::{PerfFiles, PerfWindow};
use crate::api::wire::runs::ArtifactKind;
use crate::error::{Error, Result};
use crate::perf::series::Series;
use crate::runs::{ArtifactRef, RunHold, RunStore};

/// The window's three files, reserved in its run when it starts (so the run is held while it
/// samples, and a window whose session ended still saves into that session's run).
pub(super) struct Reserved {
    series: ArtifactRef,
    svg: ArtifactRef,
    png: ArtifactRef,
    _hold: RunHold,
}

impl Reserved {
    pub fn make(runs: &RunStore, session: Option<&str>, name: &str) -> Result<Reserved> {
        let reserve = |ext: &str| {
            runs.reserve_artifact(session, &format!("{name}.{ext}"), ArtifactKind::Perf)
        };
        let (series, hold) = reserve("json")?;
        let mut made = vec![series];
        for ext in ["svg", "png"] {
            match reserve(ext) {
                Ok((a, _)) => made.push(a),
                Err(e) => {
                    made.iter().for_each(|a| runs.discard_artifact(a));
                    return Err(e);
                }
            }
        }
        let [series, svg, png] = <[ArtifactRef; 3]>::try_from(made)
            .map_err(|_| Error::internal("three artifacts were reserved"))?;
        Ok(Reserved {
            series,
            svg,
            png,
            _hold: hold,
        })
    }

    pub fn run(&self) -> &str {
        &self.series.run
    }

    pub fn discard(self, runs: &RunStore) {
        for a in [&self.series, &self.svg, &self.png] {
            runs.discard_artifact(a);
        }
    }

    /// Writes the series and summary (JSON) and the plot (SVG, PNG), and commits them.
    pub fn save(self, runs: &RunStore, info: &PerfWindow, series: &Series) -> Result<PerfFiles> {
        let written = (|| {
            let json = serde_json::to_vec_pretty(&serde_json::json!({
                "window": info,
                "points": series.points(),
            }))
            .map_err(|e| Error::internal(format!("the series: {e}")))?;
            let title = format!("{} on {} · {}", info.app, info.udid, info.started_at);
            let plot_error = |e: crate::perf::plot::PlotError| Error::internal(e.to_string());
            let svg = crate::perf::plot::svg(series.points(), &title).map_err(plot_error)?;
            let png = crate::perf::plot::png(series.points(), &title).map_err(plot_error)?;
            for (a, bytes) in [
                (&self.series, json.as_slice()),
                (&self.svg, svg.as_bytes()),
                (&self.png, png.as_slice()),
            ] {
                std::fs::write(&a.path, bytes)
                    .map_err(|e| Error::internal(format!("{}: {e}", a.path.display())))?;
                runs.commit_artifact(a)?;
            }
            Ok(())
        })();
        match written {
            Ok(()) => Ok(PerfFiles {
                series: self.series.name.clone(),
                svg: self.svg.name.clone(),
                png: self.png.name.clone(),
            }),
            Err(e) => {
                self.discard(runs);
                Err(e)
            }
        }
    }
}
