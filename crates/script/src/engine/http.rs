//! `http.*` from inside the engine: `send`, the native function the prelude calls, hands the
//! call to the engine's caller (over the [`Bridge`]) and waits for its reply, which the script
//! sees as a response object or a thrown `Error`.

use std::collections::BTreeMap;

use boa_engine::object::ObjectInitializer;
use boa_engine::property::Attribute;
use boa_engine::{
    js_string, Context, JsError, JsNativeError, JsObject, JsResult, JsString, JsValue,
};

use super::{Bridge, Event, Job};
use crate::wire::{HttpCall, HttpReply, HttpResponse};

/// `send(method, url, [[name, value]…], body)`: one HTTP call through the caller's callback.
pub(super) fn send_http(
    _this: &JsValue,
    args: &[JsValue],
    context: &mut Context,
) -> JsResult<JsValue> {
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let text = |value: JsValue, context: &mut Context| -> JsResult<String> {
        Ok(value.to_string(context)?.to_std_string_lossy())
    };
    let method = text(arg(0), context)?;
    let url = text(arg(1), context)?;
    let mut headers = BTreeMap::new();
    if let Some(list) = arg(2).as_object() {
        let length = list
            .get(js_string!("length"), context)?
            .to_length(context)?;
        for i in 0..length {
            let pair = list.get(i, context)?.as_object().ok_or_else(|| {
                JsNativeError::typ().with_message("http: a header is not a [name, value] pair")
            })?;
            let name = text(pair.get(0, context)?, context)?;
            let value = text(pair.get(1, context)?, context)?;
            headers.insert(name, value);
        }
    }
    let body = match arg(3) {
        body if body.is_undefined() => None,
        body => Some(text(body, context)?),
    };
    let call = HttpCall {
        method,
        url,
        headers,
        body,
    };

    let bridge = context.get_data::<Bridge>().ok_or_else(caller_gone)?;
    bridge
        .events
        .send(Event::Http(call))
        .map_err(|_| caller_gone())?;
    let reply = match bridge.jobs.recv() {
        Ok(Job::Reply(reply)) => reply,
        Ok(Job::Eval(_)) | Err(_) => return Err(caller_gone()),
    };
    match reply {
        HttpReply::Refused { error } => Err(JsNativeError::error().with_message(error).into()),
        HttpReply::Response(response) => Ok(response_object(response, context).into()),
    }
}

fn caller_gone() -> JsError {
    JsNativeError::error()
        .with_message("http: the engine's caller went away before it answered")
        .into()
}

/// `{ok, status, body, headers}`.
fn response_object(response: HttpResponse, context: &mut Context) -> JsObject {
    let HttpResponse {
        status,
        body,
        headers,
    } = response;
    let mut header_object = ObjectInitializer::new(context);
    for (name, value) in headers {
        header_object.property(
            JsString::from(name),
            JsString::from(value),
            Attribute::all(),
        );
    }
    let header_object = header_object.build();
    ObjectInitializer::new(context)
        .property(
            js_string!("ok"),
            (200..=299).contains(&status),
            Attribute::all(),
        )
        .property(js_string!("status"), i32::from(status), Attribute::all())
        .property(js_string!("body"), JsString::from(body), Attribute::all())
        .property(js_string!("headers"), header_object, Attribute::all())
        .build()
}
