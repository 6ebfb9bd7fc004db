//! The library layer of the runtime's own tests: one with no operations,
//! so that a scenario run on it exercises only the runtime (the event loop,
//! promises, async functions and generators), and a test that reached a
//! library operation fails loudly.

use nodesem_runtime::{
    AddListenerOptions, Completion, EventInit, EventsOnOptions, HostClass, Library, ObjectId,
    QueuingStrategy, Runtime, StreamPipeOptions, Transformer, UnderlyingSink, UnderlyingSource,
    Value,
};

/// A library layer with no operations: only the runtime's own.
pub struct NoLibrary;

/// What every library operation does here: the scenarios run on this
/// library use none.
fn none<T>() -> T {
    unreachable!("a scenario run without a library used a library operation")
}

impl Library for NoLibrary {
    fn new() -> Self {
        NoLibrary
    }
    fn reset(&mut self) {}
    fn new_abort_controller(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn abort(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn abort_signal_abort(_: &mut Runtime<Self>, _: Option<Value>) -> Completion {
        none()
    }
    fn abort_signal_timeout(_: &mut Runtime<Self>, _: u32) -> Completion {
        none()
    }
    fn abort_signal_any(_: &mut Runtime<Self>, _: Vec<Value>) -> Completion {
        none()
    }
    fn throw_if_aborted(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn set_onabort(_: &mut Runtime<Self>, _: Value, _: Value) -> Result<(), Value> {
        none()
    }
    fn add_abort_listener(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn dispose(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn set_max_listeners(_: &mut Runtime<Self>, _: Value, _: Vec<Value>) -> Completion {
        none()
    }
    fn get_max_listeners(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn new_event_emitter(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn new_async_local_storage(_: &mut Runtime<Self>, _: Option<Value>) -> Completion {
        none()
    }
    fn als_get_store(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn als_enter_with(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn als_run(_: &mut Runtime<Self>, _: Value, _: Value, _: ObjectId) -> Completion {
        none()
    }
    fn als_exit(_: &mut Runtime<Self>, _: Value, _: ObjectId) -> Completion {
        none()
    }
    fn als_disable(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn als_bind(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn als_snapshot(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn new_async_resource(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn async_resource_run(_: &mut Runtime<Self>, _: Value, _: ObjectId) -> Completion {
        none()
    }
    fn async_resource_bind(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn async_resource_emit_destroy(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn make_callback(_: &mut Runtime<Self>, _: ObjectId, _: Value, _: Option<Value>) {
        none()
    }
    fn emitter_add_listener(
        _: &mut Runtime<Self>,
        _: Value,
        _: Value,
        _: Value,
        _: bool,
        _: bool,
    ) -> Completion {
        none()
    }
    fn emitter_remove_listener(_: &mut Runtime<Self>, _: Value, _: Value, _: Value) -> Completion {
        none()
    }
    fn emitter_remove_all_listeners(
        _: &mut Runtime<Self>,
        _: Value,
        _: Option<Value>,
    ) -> Completion {
        none()
    }
    fn emitter_emit(_: &mut Runtime<Self>, _: Value, _: Value, _: Vec<Value>) -> Completion {
        none()
    }
    fn emitter_listener_count(
        _: &mut Runtime<Self>,
        _: Value,
        _: Value,
        _: Option<Value>,
    ) -> Completion {
        none()
    }
    fn emitter_event_names(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn emitter_listeners(_: &mut Runtime<Self>, _: Value, _: Value, _: bool) -> Completion {
        none()
    }
    fn emitter_events_key_count(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn error_monitor(_: &mut Runtime<Self>) -> Value {
        none()
    }
    fn default_max_listeners(_: &mut Runtime<Self>) -> Value {
        none()
    }
    fn set_default_max_listeners(_: &mut Runtime<Self>, _: Value) -> Result<(), Value> {
        none()
    }
    fn events_once(_: &mut Runtime<Self>, _: Value, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn new_capturing_event_emitter(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn emitter_set_rejection_handler(
        _: &mut Runtime<Self>,
        _: Value,
        _: Value,
    ) -> Result<(), Value> {
        Ok(())
    }
    fn events_on(_: &mut Runtime<Self>, _: Value, _: Value, _: EventsOnOptions) -> Completion {
        none()
    }
    fn events_iterator_throw(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn events_iterator_next(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn events_iterator_return(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn new_event_target(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn add_event_listener(
        _: &mut Runtime<Self>,
        _: Value,
        _: &str,
        _: Value,
        _: AddListenerOptions,
    ) -> Completion {
        none()
    }
    fn remove_event_listener(
        _: &mut Runtime<Self>,
        _: Value,
        _: &str,
        _: Value,
        _: bool,
    ) -> Completion {
        none()
    }
    fn dispatch_new_event(_: &mut Runtime<Self>, _: Value, _: &str, _: bool) -> Completion {
        none()
    }
    fn prevent_default(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn stop_propagation(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn stop_immediate_propagation(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn new_event(_: &mut Runtime<Self>, _: EventInit) -> Completion {
        none()
    }
    fn new_abort_signal(_: &mut Runtime<Self>) -> Completion {
        none()
    }
    fn dispatch_event(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn composed_path(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn set_return_value(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn set_cancel_bubble(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn new_readable_stream(
        _: &mut Runtime<Self>,
        _: UnderlyingSource,
        _: QueuingStrategy,
    ) -> Completion {
        none()
    }
    fn readable_controller_enqueue(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn readable_controller_close(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn readable_controller_error(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn readable_get_reader(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn readable_cancel(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn reader_read(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn reader_release_lock(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn reader_cancel(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn readable_tee(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn readable_pipe_to(
        _: &mut Runtime<Self>,
        _: Value,
        _: Value,
        _: StreamPipeOptions,
    ) -> Completion {
        none()
    }
    fn readable_pipe_through(
        _: &mut Runtime<Self>,
        _: Value,
        _: Value,
        _: StreamPipeOptions,
    ) -> Completion {
        none()
    }
    fn readable_from(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn readable_values(_: &mut Runtime<Self>, _: Value, _: bool) -> Completion {
        none()
    }
    fn async_iterator_next(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn async_iterator_return(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn new_writable_stream(
        _: &mut Runtime<Self>,
        _: UnderlyingSink,
        _: QueuingStrategy,
    ) -> Completion {
        none()
    }
    fn writable_abort(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn writable_close(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn writable_get_writer(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn writable_controller_error(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn writer_write(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn writer_close(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn writer_abort(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }
    fn writer_release_lock(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    fn new_transform_stream(
        _: &mut Runtime<Self>,
        _: Transformer,
        _: QueuingStrategy,
        _: QueuingStrategy,
    ) -> Completion {
        none()
    }
    fn transform_controller_enqueue(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn transform_controller_error(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }
    fn transform_controller_terminate(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }
    // ---- byte streams ----

    fn new_readable_byte_stream(
        _: &mut Runtime<Self>,
        _: UnderlyingSource,
        _: QueuingStrategy,
        _: Option<f64>,
    ) -> Completion {
        none()
    }

    fn byte_controller_enqueue(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }

    fn byte_controller_close(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }

    fn byte_controller_error(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }

    fn byob_request_respond(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }

    fn byob_request_respond_with_new_view(_: &mut Runtime<Self>, _: Value, _: Value) -> Completion {
        none()
    }

    fn readable_get_byob_reader(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }

    fn byob_reader_read(_: &mut Runtime<Self>, _: Value, _: Value, _: Option<Value>) -> Completion {
        none()
    }

    fn byob_reader_release_lock(_: &mut Runtime<Self>, _: Value) -> Completion {
        none()
    }

    fn byob_reader_cancel(_: &mut Runtime<Self>, _: Value, _: Option<Value>) -> Completion {
        none()
    }

    fn get(_: &mut Runtime<Self>, _: ObjectId, _: &str) -> Completion {
        none()
    }
    fn host_class(_: &Runtime<Self>, _: ObjectId) -> HostClass {
        none()
    }
    fn dependant_count(_: &mut Runtime<Self>, _: Value) -> Completion {
        Ok(Value::Number(0.0))
    }

    fn trace(_: &Runtime<Self>, _: ObjectId, _: &mut Vec<Value>) {}

    fn trace_roots(_: &Runtime<Self>, _: &mut Vec<Value>) -> bool {
        // This layer makes no objects of its own: the runtime's collector
        // is exact here.
        true
    }

    fn collected(_: &mut Runtime<Self>, _: &[ObjectId]) {}

    fn listener_count(_: &Runtime<Self>, _: ObjectId, _: &str) -> u64 {
        0
    }
}
