// nodesem_callbacks: a small Node addon through which a scenario makes real
// native callbacks into JavaScript.
//
// Why it exists: everything else the Node engine runs enters JavaScript from
// JavaScript (the prelude's virtual loop runs inside one real setImmediate).
// Node's InternalCallbackScope, which drains process.nextTick's queue and
// then the microtasks when the outermost scope closes, and which restores the
// async context frame (nodejs/node#66316 changed how it looks these up), is
// only reached when native code calls into JS with no JS on the stack. This
// addon does exactly that, from a libuv timer callback:
//
//   makeCallbackAfter(ms, callback, ...args)
//     Starts a ref'd uv timer on the environment's loop. When it fires, the
//     timer callback (native code, no JS below it) calls
//     `callback.call(resource, ...args)` through
//     node::MakeCallback(isolate, resource, callback, argc, argv, ctx), where
//     `ctx` came from node::EmitAsyncInit when makeCallbackAfter was called;
//     node::EmitAsyncDestroy follows the call. The free MakeCallback gets no
//     async context frame, so an AsyncLocalStorage store active at the call
//     of makeCallbackAfter is not seen by the callback.
//
//   makeResourceCallbackAfter(ms, callback, ...args)
//     The same through a node::AsyncResource subclass made when
//     makeResourceCallbackAfter is called (so it captures the current async
//     context frame, an AsyncLocalStorage store among it); the timer calls
//     resource->MakeCallback(callback, argc, argv), and deleting the resource
//     emits the destroy hook.
//
// Both return undefined and throw a TypeError for a bad `ms` or `callback`.
// `ms` is a whole number of milliseconds, 0 included (a 0 ms uv timer fires
// in the timers phase of the loop's next iteration).
//
// Lifetime: the callback, the arguments, the context and the resource object
// are v8::Globals owned by one heap-allocated Pending record; the record owns
// the uv_timer_t, which is closed with uv_close after it fired (the Globals
// are released first), and the record is freed in the close callback. An
// asynchronous environment cleanup hook, registered until then, closes a
// timer that has not fired when the environment is torn down (a Worker
// terminated, or the process exiting) and holds the teardown until the close
// callback ran: Node unloads a Worker's addons after its cleanup, and a close
// callback left for later would then jump into unmapped code.
//
// Built by harness/src/native.rs with the machine's C++ compiler against the
// headers that the Node binary's npm package ships (include/node), roughly:
//   c++ -std=c++20 -shared -fPIC -O1 -fno-rtti -fno-exceptions
//     -DNODE_GYP_MODULE_NAME=nodesem_callbacks -DBUILDING_NODE_EXTENSION
//     -I<node>/../include/node -x c++ - -o <cache>/<key>.node
// -fno-rtti matters: Node is built without RTTI, so a subclass of
// node::AsyncResource compiled with RTTI would need a typeinfo symbol that
// the node binary does not export, and dlopen would fail.
// Load it with process.dlopen({ exports: {} }, path) or require(path).

#include <node.h>
#include <uv.h>
#include <v8.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nodesem_callbacks {

using v8::Context;
using v8::Function;
using v8::FunctionCallbackInfo;
using v8::Global;
using v8::HandleScope;
using v8::Isolate;
using v8::Local;
using v8::Object;
using v8::String;
using v8::Value;

// The AsyncResource that makeResourceCallbackAfter makes: constructed in the
// call (so the async context frame of that moment is captured), deleted after
// its one callback (which emits the destroy hook).
class CallbackResource : public node::AsyncResource {
 public:
  CallbackResource(Isolate* isolate, Local<Object> resource)
      : node::AsyncResource(isolate,
                            resource,
                            "nodesem:makeResourceCallbackAfter") {}
};

// One pending callback: the timer and everything its callback needs.
struct Pending {
  uv_timer_t timer;
  Isolate* isolate = nullptr;
  node::Environment* env = nullptr;
  Global<Context> context;
  Global<Object> resource_object;  // the receiver (and async resource)
  Global<Function> callback;
  std::vector<Global<Value>> args;
  // makeCallbackAfter: the context from EmitAsyncInit, destroyed after use.
  node::async_context async_context{0, 0};
  bool has_async_context = false;
  // makeResourceCallbackAfter: the resource, deleted after use.
  std::unique_ptr<CallbackResource> resource;
  // The async cleanup hook, registered until the timer is closed.
  node::AsyncCleanupHookHandle cleanup_hook;
  // Set when the environment's teardown ran the hook: to be called once the
  // timer is closed, which lets the teardown go on.
  void (*teardown_done)(void*) = nullptr;
  void* teardown_arg = nullptr;
  bool closing = false;
};

// Releases every V8 handle of `pending` and its async resources (emitting
// destroy). Safe during the environment's teardown.
void ReleaseJs(Pending* pending) {
  HandleScope handle_scope(pending->isolate);
  if (pending->has_async_context) {
    node::EmitAsyncDestroy(pending->env, pending->async_context);
    pending->has_async_context = false;
  }
  pending->resource.reset();
  pending->args.clear();
  pending->callback.Reset();
  pending->resource_object.Reset();
  pending->context.Reset();
}

// The close callback: the last use of `pending`. Without a teardown the hook
// is unregistered; during one, the teardown is told it may go on.
void OnClosed(uv_handle_t* handle) {
  Pending* pending = static_cast<Pending*>(handle->data);
  void (*teardown_done)(void*) = pending->teardown_done;
  void* teardown_arg = pending->teardown_arg;
  if (teardown_done == nullptr) {
    node::RemoveEnvironmentCleanupHook(std::move(pending->cleanup_hook));
  }
  delete pending;
  if (teardown_done != nullptr) teardown_done(teardown_arg);
}

void Close(Pending* pending) {
  if (pending->closing) return;
  pending->closing = true;
  uv_timer_stop(&pending->timer);
  uv_close(reinterpret_cast<uv_handle_t*>(&pending->timer), OnClosed);
}

// The environment is being torn down (a Worker stopping, or the process
// exiting) while the timer is pending or closing. The hook is asynchronous
// because the close callback lives in this library: Node unloads a Worker's
// addons after its cleanup, so the close must finish before the teardown goes
// on (a synchronous hook left it to a later uv_run, after the unload, and the
// process crashed in the unmapped callback).
void TeardownHook(void* arg, void (*done)(void*), void* done_arg) {
  Pending* pending = static_cast<Pending*>(arg);
  pending->teardown_done = done;
  pending->teardown_arg = done_arg;
  if (!pending->closing) {
    ReleaseJs(pending);
    Close(pending);
  }
}

// The timer callback: native code with no JavaScript on the stack, like an
// I/O callback. The outermost callback scope opens and closes here.
void OnTimer(uv_timer_t* timer) {
  Pending* pending = static_cast<Pending*>(timer->data);
  Isolate* isolate = pending->isolate;
  {
    HandleScope handle_scope(isolate);
    Local<Context> context = pending->context.Get(isolate);
    Context::Scope context_scope(context);
    Local<Function> callback = pending->callback.Get(isolate);
    std::vector<Local<Value>> argv;
    argv.reserve(pending->args.size());
    for (const Global<Value>& arg : pending->args) {
      argv.push_back(arg.Get(isolate));
    }
    int argc = static_cast<int>(argv.size());
    Local<Value>* argp = argv.empty() ? nullptr : argv.data();
    if (pending->resource) {
      (void)pending->resource->MakeCallback(callback, argc, argp);
    } else {
      Local<Object> receiver = pending->resource_object.Get(isolate);
      (void)node::MakeCallback(
          isolate, receiver, callback, argc, argp, pending->async_context);
    }
  }
  ReleaseJs(pending);
  Close(pending);
}

// Shared by both exports: validates (ms, callback, ...args), records them
// and starts the timer. `with_resource` picks node::AsyncResource over
// EmitAsyncInit + node::MakeCallback.
void Schedule(const FunctionCallbackInfo<Value>& info, bool with_resource) {
  Isolate* isolate = info.GetIsolate();
  HandleScope handle_scope(isolate);
  Local<Context> context = isolate->GetCurrentContext();
  const char* name = with_resource ? "makeResourceCallbackAfter"
                                   : "makeCallbackAfter";

  if (info.Length() < 2 || !info[0]->IsNumber() || !info[1]->IsFunction()) {
    std::string message = std::string(name) +
                          "(ms, callback, ...args): ms must be a number and "
                          "callback a function";
    isolate->ThrowException(v8::Exception::TypeError(
        String::NewFromUtf8(isolate, message.c_str()).ToLocalChecked()));
    return;
  }
  double ms = info[0].As<v8::Number>()->Value();
  if (!(ms >= 0) || ms > 2147483647.0) {
    std::string message =
        std::string(name) + ": ms must be between 0 and 2147483647";
    isolate->ThrowException(v8::Exception::TypeError(
        String::NewFromUtf8(isolate, message.c_str()).ToLocalChecked()));
    return;
  }

  uv_loop_t* loop = node::GetCurrentEventLoop(isolate);
  node::Environment* env = node::GetCurrentEnvironment(context);
  if (loop == nullptr || env == nullptr) {
    isolate->ThrowException(v8::Exception::Error(
        String::NewFromUtf8(isolate,
                            "nodesem_callbacks: no Node environment here")
            .ToLocalChecked()));
    return;
  }

  auto pending = std::make_unique<Pending>();
  pending->isolate = isolate;
  pending->env = env;
  pending->context.Reset(isolate, context);
  pending->callback.Reset(isolate, info[1].As<Function>());
  for (int i = 2; i < info.Length(); i++) {
    pending->args.emplace_back(isolate, info[i]);
  }
  Local<Object> resource_object = Object::New(isolate);
  pending->resource_object.Reset(isolate, resource_object);
  if (with_resource) {
    pending->resource =
        std::make_unique<CallbackResource>(isolate, resource_object);
  } else {
    pending->async_context = node::EmitAsyncInit(
        isolate, resource_object, "nodesem:makeCallbackAfter");
    pending->has_async_context = true;
  }

  int err = uv_timer_init(loop, &pending->timer);
  if (err != 0) {
    ReleaseJs(pending.get());
    std::string message =
        std::string(name) + ": uv_timer_init: " + uv_strerror(err);
    isolate->ThrowException(v8::Exception::Error(
        String::NewFromUtf8(isolate, message.c_str()).ToLocalChecked()));
    return;
  }
  pending->timer.data = pending.get();
  // uv_timer_start fails only for a null callback or a closing handle.
  uv_timer_start(&pending->timer, OnTimer, static_cast<uint64_t>(ms), 0);
  Pending* raw = pending.release();
  raw->cleanup_hook = node::AddEnvironmentCleanupHook(isolate, TeardownHook, raw);
}

void MakeCallbackAfter(const FunctionCallbackInfo<Value>& info) {
  Schedule(info, false);
}

void MakeResourceCallbackAfter(const FunctionCallbackInfo<Value>& info) {
  Schedule(info, true);
}

void Export(Isolate* isolate,
            Local<Context> context,
            Local<Object> exports,
            const char* name,
            v8::FunctionCallback fn) {
  Local<String> key = String::NewFromUtf8(isolate, name).ToLocalChecked();
  Local<Function> function = Function::New(context, fn).ToLocalChecked();
  function->SetName(key);
  exports->Set(context, key, function).Check();
}

}  // namespace nodesem_callbacks

// Context-aware (loadable in Workers and in several contexts): every global
// lives in the Pending records, none in static storage.
NODE_MODULE_INIT(/* exports, module, context */) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  nodesem_callbacks::Export(isolate,
                            context,
                            exports,
                            "makeCallbackAfter",
                            nodesem_callbacks::MakeCallbackAfter);
  nodesem_callbacks::Export(isolate,
                            context,
                            exports,
                            "makeResourceCallbackAfter",
                            nodesem_callbacks::MakeResourceCallbackAfter);
}
