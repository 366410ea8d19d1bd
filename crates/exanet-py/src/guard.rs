//! No panic reaches Python as a panic: every entry point runs inside [`guarded`], which turns
//! one into `InternalError` carrying what failed and where. The panic hook records the first
//! panic of a call (workers of the parallel engine included) instead of printing it, so the
//! user sees one line, not a Rust backtrace.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use pyo3::PyResult;

use crate::InternalError;

/// The first panic since the current call began: its message and source location.
static FIRST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Replaces the default panic hook (which prints to stderr) by one that records the panic.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = payload_text(info.payload());
        let text = match info.location() {
            Some(at) => format!("{message} (at {}:{})", at.file(), at.line()),
            None => message,
        };
        let mut first = FIRST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(text);
    }));
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Runs entry point `what`; a panic inside it becomes `InternalError("WHAT: MESSAGE (at
/// FILE:LINE)")`.
pub fn guarded<T>(what: &str, call: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    FIRST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(payload) => {
            let recorded = FIRST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
            let text = recorded.unwrap_or_else(|| payload_text(payload.as_ref()));
            Err(InternalError::new_err(format!("{what}: {text}")))
        }
    }
}
