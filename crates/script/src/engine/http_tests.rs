//! Tests of `http.*`: calls reaching the caller's callback, and its replies reaching the script.

use super::tests::eval_of;
use super::Engine;
use crate::wire::{FromWorker, HttpCall, HttpReply, HttpResponse};

/// A fake parent: records the calls, answers from a list.
struct FakeHttp {
    calls: Vec<HttpCall>,
    replies: Vec<HttpReply>,
}

impl FakeHttp {
    fn new(replies: Vec<HttpReply>) -> Self {
        FakeHttp {
            calls: Vec::new(),
            replies,
        }
    }

    fn run(&mut self, engine: &mut Engine, code: &str) -> FromWorker {
        let mut callback = |call: HttpCall| {
            self.calls.push(call);
            assert!(!self.replies.is_empty(), "more calls than replies");
            self.replies.remove(0)
        };
        engine.eval(&eval_of(code), &mut callback)
    }
}

fn response(status: u16, body: &str) -> HttpReply {
    let headers = [("content-type".to_owned(), "application/json".to_owned())].into();
    HttpReply::Response(HttpResponse {
        status,
        body: body.to_owned(),
        headers,
    })
}

fn call(method: &str, url: &str, headers: &[(&str, &str)], body: Option<&str>) -> HttpCall {
    HttpCall {
        method: method.to_owned(),
        url: url.to_owned(),
        headers: headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        body: body.map(str::to_owned),
    }
}

#[test]
fn http_calls_go_to_the_callback_and_answer_a_response_object() {
    let mut engine = Engine::new();
    let mut http = FakeHttp::new(vec![
        response(200, r#"{"token":"t1"}"#),
        response(201, "created"),
        response(404, "missing"),
        response(204, ""),
        response(500, "oops"),
        response(200, "ok"),
    ]);
    let code = r#"
        const r = http.get('https://api.test/user?id=1', {headers: {Authorization: 'Bearer x', 'X-Count': 3}});
        const token = json(r.body).token;
        const p = http.post('https://api.test/login', {body: '{"a":1}', headers: {'Content-Type': 'application/json'}});
        const n = http.put('https://api.test/thing', {body: {name: 'n', list: [1]}});
        const d = http.delete('https://api.test/thing/1');
        const q = http.request('https://api.test/patch', {method: 'patch', body: 'b'});
        const g = http.request('https://api.test/default');
        [r.ok, r.status, token, r.headers['content-type'], p.status, p.body, n.ok, n.status, d.ok, q.status, g.ok].join('|')
    "#;
    let answer = http.run(&mut engine, code);
    assert_eq!(
        answer,
        FromWorker::Done {
            value: "true|200|t1|application/json|201|created|false|404|true|500|true".to_owned(),
            console: vec![],
        }
    );
    assert_eq!(
        http.calls,
        [
            call(
                "GET",
                "https://api.test/user?id=1",
                &[("Authorization", "Bearer x"), ("X-Count", "3")],
                None
            ),
            call(
                "POST",
                "https://api.test/login",
                &[("Content-Type", "application/json")],
                Some(r#"{"a":1}"#)
            ),
            call(
                "PUT",
                "https://api.test/thing",
                &[],
                Some(r#"{"name":"n","list":[1]}"#)
            ),
            call("DELETE", "https://api.test/thing/1", &[], None),
            call("PATCH", "https://api.test/patch", &[], Some("b")),
            call("GET", "https://api.test/default", &[], None),
        ]
    );
}

#[test]
fn a_refused_http_call_throws_an_error_the_script_can_catch() {
    let mut engine = Engine::new();
    let refused = || HttpReply::Refused {
        error: "host evil.test is not allowed".to_owned(),
    };
    let mut http = FakeHttp::new(vec![refused()]);
    let code =
        "try { http.get('https://evil.test/'); 'no' } catch (e) { e.name + ': ' + e.message }";
    let answer = http.run(&mut engine, code);
    assert_eq!(
        answer,
        FromWorker::Done {
            value: "Error: host evil.test is not allowed".to_owned(),
            console: vec![]
        }
    );
    // Uncaught, it fails the evaluation with its message, at the script's line.
    let mut http = FakeHttp::new(vec![refused()]);
    let answer = http.run(
        &mut engine,
        "console.log('calling');\nhttp.post('https://evil.test/', {body: 'x'})",
    );
    let FromWorker::Failed { message, console } = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(
        message,
        "Error: host evil.test is not allowed (in test.js, line 2, col 10)"
    );
    assert_eq!(console, ["calling"]);
}

#[test]
fn multipart_forms_are_refused_before_any_call() {
    let mut engine = Engine::new();
    let mut http = FakeHttp::new(vec![]);
    let answer = http.run(
        &mut engine,
        "http.post('https://api.test/', {multipartForm: {file: {filePath: 'a.png'}}})",
    );
    let FromWorker::Failed { message, .. } = answer else {
        panic!("{answer:?}")
    };
    assert!(
        message.starts_with("Error: http: multipartForm is not supported"),
        "{message}"
    );
    assert!(http.calls.is_empty());
}
