//! The runner's JavaScript, through the fake host: what is evaluated when, and how often.

use std::time::Duration;

use mobilectl_error::Op;
use serde_json::json;

use crate::fake::Fake;
use crate::run::Runner;
use crate::wire::FlowStepStatus::*;

#[tokio::test]
async fn each_expression_is_evaluated_once_just_before_its_step_or_as_its_condition_is_checked() {
    let host = Fake::default().evaluating(&[
        ("output.user = 'carol'", "carol"),
        ("output.user", "carol"),
        ("output.skip", "false"),
        ("output.more", "false"),
        ("output.ok", "undefined"),
    ]);
    let flow = "appId: com.x\n---\n- evalScript: ${output.user = 'carol'}\n\
        - inputText: ${output.user}\n\
        - runFlow: {when: {true: \"${output.skip}\"}, commands: [back]}\n\
        - repeat: {while: {true: \"${output.more}\"}, commands: [back]}\n\
        - assertTrue: ${output.ok}\n- back\n";
    let env = vec![("USER".to_string(), "bob".to_string())];
    let parsed = crate::load::parse_text(flow, &env);
    assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
    let result = Runner::new(&host, env, Duration::from_secs(60))
        .run(&parsed.flow)
        .await;
    assert_eq!(
        host.codes(),
        vec![
            "output.user = 'carol'",
            "output.user",
            "output.skip",
            "output.more",
            "output.ok"
        ]
    );
    let calls = host.calls.lock().unwrap().clone();
    assert_eq!(calls[0], (Op::TypeText, json!({"text": "carol"})));
    let statuses: Vec<_> = result.steps.iter().map(|s| s.status).collect();
    assert_eq!(statuses, [Passed, Passed, Skipped, Passed, Failed]);
    let failed = &result.steps[4];
    assert_eq!(
        failed.error.as_deref(),
        Some("`${output.ok}` is `undefined`, not true")
    );
    // What a script logs goes with its step; the variables in scope are its globals.
    assert_eq!(
        result.steps[0].console,
        vec!["ran evalScript ${output.user = 'carol'}"]
    );
    let scripts = host.scripts.lock().unwrap().clone();
    assert!(scripts[0].env.contains(&("USER".into(), "bob".into())));
}

#[tokio::test]
async fn a_script_file_runs_with_its_env_and_a_throw_fails_its_step() {
    let scripts = [
        ("setup.js".to_string(), "output.token = USER".to_string()),
        ("bad.js".to_string(), "throw new Error('no')".to_string()),
    ]
    .into_iter()
    .collect();
    let flow = "appId: com.x\n---\n- runScript: {file: setup.js, env: {USER: \"${WHO}\"}}\n\
        - runScript: {file: bad.js, optional: true}\n- runScript: bad.js\n- back\n";
    let env = vec![("WHO".to_string(), "dave".to_string())];
    let parsed = crate::load::parse_posted("flow.yaml", flow, &scripts, &env);
    assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
    let host = Fake::default();
    let result = Runner::new(&host, env, Duration::from_secs(60))
        .run(&parsed.flow)
        .await;
    let statuses: Vec<_> = result.steps.iter().map(|s| s.status).collect();
    assert_eq!(statuses, [Passed, Warned, Failed]);
    assert_eq!(result.steps[0].title, "runScript setup.js");
    assert_eq!(
        result.steps[2].error.as_deref(),
        Some("Error: thrown by bad.js")
    );
    let first = host.scripts.lock().unwrap()[0].clone();
    assert_eq!(first.code, "output.token = USER");
    // The script's own env comes after the flow's: it wins.
    assert_eq!(first.env.last(), Some(&("USER".into(), "dave".into())));
    // No device operation but the failure's own files (its tree and log).
    assert_eq!(host.ops(), vec![Op::Snapshot, Op::TailLogs]);
}

#[tokio::test]
async fn added_media_reach_the_host_with_their_bytes_in_order() {
    let media = [
        ("assets/a.png", b"A".to_vec()),
        ("assets/b.mp4", b"BB".to_vec()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let flow = "appId: com.x\n---\n- addMedia:\n    - ../assets/a.png\n    - ../assets/b.mp4\n";
    let parsed =
        crate::load::parse_posted_media("flows/f.yaml", flow, &Default::default(), &media, &[]);
    assert!(parsed.refusals.is_empty(), "{:?}", parsed.refusals);
    let host = Fake::default();
    let result = Runner::new(&host, vec![], Duration::from_secs(60))
        .run(&parsed.flow)
        .await;
    assert!(result.success, "{:?}", result.steps);
    let kept = host.kept.lock().unwrap().clone();
    assert_eq!(
        kept,
        vec![
            ("media:assets/a.png".to_string(), b"A".to_vec()),
            ("media:assets/b.mp4".to_string(), b"BB".to_vec())
        ]
    );
    // A path that climbs out of the posted folder is refused before the run.
    let out = "- addMedia: ../../etc/passwd.png\n";
    let parsed =
        crate::load::parse_posted_media("flows/f.yaml", out, &Default::default(), &media, &[]);
    assert!(
        parsed.refusals[0]
            .message
            .contains("outside the flow's folder"),
        "{:?}",
        parsed.refusals
    );
}
