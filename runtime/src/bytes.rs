//! ArrayBuffers and Uint8Arrays: the part of ECMA-262 (25.1 ArrayBuffer
//! objects, 23.2 TypedArray objects) that byte streams need and that both
//! engines share, as they share promises.
//!
//! Byte streams move memory between owners: `enqueue(view)` transfers the
//! view's buffer (the caller's view is then detached and reads as empty), a
//! BYOB read hands the reader's buffer to the stream and back, a byte tee
//! copies a chunk for its second branch. Those steps are observable only
//! through the bytes and lengths of views, so this module keeps exactly
//! that: an ArrayBuffer is its bytes or detached, a Uint8Array is a window
//! (offset and length) on one. Only Uint8Array exists, so the element size
//! is always 1 and a length in elements is a length in bytes.

use crate::value::{Completion, ObjectData, ObjectId, Value};
use crate::{Library, Runtime};

/// A Uint8Array's slots: [[ViewedArrayBuffer]], [[ByteOffset]] and
/// [[ArrayLength]] (its [[ByteLength]] too, the element size being 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// [[ViewedArrayBuffer]].
    pub buffer: ObjectId,
    /// [[ByteOffset]].
    pub byte_offset: usize,
    /// [[ArrayLength]], which is also [[ByteLength]].
    pub length: usize,
}

impl<L: Library> Runtime<L> {
    /// A new ArrayBuffer holding `bytes`.
    pub fn new_array_buffer(&mut self, bytes: Vec<u8>) -> ObjectId {
        self.heap.alloc(ObjectData::ArrayBuffer(Some(bytes)))
    }

    /// A new Uint8Array on `buffer` (`new Uint8Array(buffer, byteOffset,
    /// length)`); the caller has checked that the window fits.
    pub fn new_uint8_array(
        &mut self,
        buffer: ObjectId,
        byte_offset: usize,
        length: usize,
    ) -> Value {
        debug_assert!(
            self.array_buffer_byte_length(buffer) >= byte_offset + length,
            "a view inside its buffer"
        );
        Value::Object(self.heap.alloc(ObjectData::Uint8Array(View {
            buffer,
            byte_offset,
            length,
        })))
    }

    /// `new Uint8Array(bytes)`: a view of all of a new buffer.
    pub fn new_uint8_array_from(&mut self, bytes: Vec<u8>) -> Value {
        let length = bytes.len();
        let buffer = self.new_array_buffer(bytes);
        self.new_uint8_array(buffer, 0, length)
    }

    /// The slots of a Uint8Array; `None` for any other value.
    pub fn uint8_array(&self, value: &Value) -> Option<View> {
        match value {
            Value::Object(id) => match self.heap.get(*id) {
                ObjectData::Uint8Array(view) => Some(*view),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `buffer` is an ArrayBuffer.
    pub fn is_array_buffer(&self, buffer: ObjectId) -> bool {
        matches!(self.heap.get(buffer), ObjectData::ArrayBuffer(_))
    }

    /// IsDetachedBuffer (25.1.3.3).
    pub fn is_detached_buffer(&self, buffer: ObjectId) -> bool {
        matches!(self.heap.get(buffer), ObjectData::ArrayBuffer(None))
    }

    /// ArrayBufferByteLength: 0 once detached.
    pub fn array_buffer_byte_length(&self, buffer: ObjectId) -> usize {
        match self.heap.get(buffer) {
            ObjectData::ArrayBuffer(Some(bytes)) => bytes.len(),
            _ => 0,
        }
    }

    /// A view's length as `view.length` and `view.byteLength` read it
    /// (TypedArrayLength): 0 when its buffer is detached.
    pub fn view_length(&self, view: View) -> usize {
        if self.is_detached_buffer(view.buffer) {
            0
        } else {
            view.length
        }
    }

    /// `view.byteOffset`: 0 when its buffer is detached.
    pub fn view_byte_offset(&self, view: View) -> usize {
        if self.is_detached_buffer(view.buffer) {
            0
        } else {
            view.byte_offset
        }
    }

    /// The bytes a view sees, copied (none when detached).
    pub fn view_bytes(&self, view: View) -> Vec<u8> {
        match self.heap.get(view.buffer) {
            ObjectData::ArrayBuffer(Some(bytes)) => {
                bytes[view.byte_offset..view.byte_offset + view.length].to_vec()
            }
            _ => Vec::new(),
        }
    }

    /// DetachArrayBuffer (25.1.3.5), taking the bytes out: what
    /// TransferArrayBuffer moves into its new buffer. `None` when it was
    /// detached already.
    pub fn detach_array_buffer(&mut self, buffer: ObjectId) -> Option<Vec<u8>> {
        match self.heap.get_mut(buffer) {
            ObjectData::ArrayBuffer(bytes) => bytes.take(),
            _ => None,
        }
    }

    /// `ArrayBuffer.prototype.transfer()` with no length: a new buffer with
    /// the bytes, the old one detached. Throws V8's TypeError for a
    /// detached buffer.
    pub fn transfer_array_buffer(&mut self, buffer: ObjectId) -> Result<ObjectId, Value> {
        match self.detach_array_buffer(buffer) {
            Some(bytes) => Ok(self.new_array_buffer(bytes)),
            None => Err(self.new_error(
                "TypeError",
                "Cannot perform ArrayBuffer.prototype.transfer on a detached ArrayBuffer",
            )),
        }
    }

    /// CopyDataBlockBytes between two buffers (the byte streams' "copy
    /// bytes"): `count` bytes from `from[from_index..]` to
    /// `to[to_index..]`. The caller has checked both windows.
    pub fn copy_buffer_bytes(
        &mut self,
        to: ObjectId,
        to_index: usize,
        from: ObjectId,
        from_index: usize,
        count: usize,
    ) {
        let source = match self.heap.get(from) {
            ObjectData::ArrayBuffer(Some(bytes)) => bytes[from_index..from_index + count].to_vec(),
            _ => panic!("copying from a detached or missing buffer"),
        };
        match self.heap.get_mut(to) {
            ObjectData::ArrayBuffer(Some(bytes)) => {
                bytes[to_index..to_index + count].copy_from_slice(&source)
            }
            _ => panic!("copying into a detached or missing buffer"),
        }
    }

    /// `buffer.slice(begin, end)` for a window inside the buffer: a new
    /// ArrayBuffer with a copy of those bytes.
    pub fn array_buffer_slice(&mut self, buffer: ObjectId, begin: usize, end: usize) -> ObjectId {
        let bytes = match self.heap.get(buffer) {
            ObjectData::ArrayBuffer(Some(bytes)) => bytes[begin..end].to_vec(),
            _ => Vec::new(),
        };
        self.new_array_buffer(bytes)
    }

    /// `view.subarray(start, end)` (23.2.3.30): relative indices, a
    /// negative one counting from the end, clamped to the view; a new view
    /// on the same buffer. V8 throws when the buffer is detached, as
    /// constructing the new view does.
    pub fn subarray(&mut self, value: &Value, start: i32, end: Option<i32>) -> Completion {
        let Some(view) = self.uint8_array(value) else {
            return Err(self.new_error("TypeError", "this is not a typed array."));
        };
        let length = self.view_length(view) as i64;
        let relative = |i: i64| {
            if i < 0 {
                (length + i).max(0)
            } else {
                i.min(length)
            }
        };
        let begin = relative(i64::from(start));
        let finish = end.map_or(length, |e| relative(i64::from(e)));
        let new_length = (finish - begin).max(0) as usize;
        if self.is_detached_buffer(view.buffer) {
            return Err(self.new_error(
                "TypeError",
                "Cannot perform Construct on a detached ArrayBuffer",
            ));
        }
        Ok(self.new_uint8_array(view.buffer, view.byte_offset + begin as usize, new_length))
    }
}

impl<L: Library> Runtime<L> {
    /// A Uint8Array as Node's `util.inspect` shows it with the default
    /// options (what an `ERR_INVALID_ARG_VALUE` message shows): `Uint8Array(2)
    /// [ 1, 2 ]`, `Uint8Array(0) []`, and past six elements grouped into
    /// rows of right-aligned columns, one row a line; past 100 elements,
    /// `... N more items`.
    ///
    /// NODE: <https://github.com/nodejs/node/blob/v26.12.1/lib/internal/util/inspect.js#L2658-L2710>
    /// `reduceToSingleString` with `compact: 3` and `breakLength: 128`, and
    /// `groupArrayElements` (L2054-L2160) for more than six entries.
    pub fn inspect_uint8_array(&self, view: View) -> String {
        const BREAK_LENGTH: usize = 128;
        const MAX_ARRAY_LENGTH: usize = 100;
        let bytes = self.view_bytes(view);
        let length = bytes.len();
        let open = format!("Uint8Array({length}) [");
        if length == 0 {
            return format!("{open}]");
        }
        let mut output: Vec<String> = bytes
            .iter()
            .take(MAX_ARRAY_LENGTH)
            .map(|b| b.to_string())
            .collect();
        if length > MAX_ARRAY_LENGTH {
            let remaining = length - MAX_ARRAY_LENGTH;
            let s = if remaining > 1 { "s" } else { "" };
            output.push(format!("... {remaining} more item{s}"));
        }
        let entries = output.len();
        if entries > 6 {
            output = group_array_elements(output, length > MAX_ARRAY_LENGTH, BREAK_LENGTH);
        }
        if entries == output.len() {
            let start = output.len() + open.len() + 10;
            let mut total = output.len() + start;
            let mut below = total + output.len() <= BREAK_LENGTH;
            for entry in &output {
                total += entry.len();
                below = below && total <= BREAK_LENGTH;
            }
            if below {
                return format!("{open} {} ]", output.join(", "));
            }
        }
        format!("{open}\n  {}\n]", output.join(",\n  "))
    }
}

/// `groupArrayElements(ctx, output, value)` of Node's inspect, for numbers
/// at indentation 0; `extra` when the last entry is the "more items" text.
fn group_array_elements(output: Vec<String>, extra: bool, break_length: usize) -> Vec<String> {
    let separator_space = 2;
    let output_length = if extra {
        output.len() - 1
    } else {
        output.len()
    };
    let data_len: Vec<usize> = output[..output_length].iter().map(String::len).collect();
    let total_length: usize = data_len.iter().map(|len| len + separator_space).sum();
    let max_length = data_len.iter().copied().max().unwrap_or(0);
    let actual_max = max_length + separator_space;
    if !(actual_max * 3 < break_length
        && (total_length as f64 / actual_max as f64 > 5.0 || max_length <= 6))
    {
        return output;
    }
    let approx_char_heights = 2.5;
    let average_bias = (actual_max as f64 - total_length as f64 / output.len() as f64).sqrt();
    let biased_max = (actual_max as f64 - 3.0 - average_bias).max(1.0);
    let columns = ((approx_char_heights * biased_max * output_length as f64).sqrt() / biased_max)
        .round()
        .min((break_length / actual_max) as f64)
        .min(3.0 * 4.0)
        .min(15.0) as usize;
    if columns <= 1 {
        return output;
    }
    let max_line_length: Vec<usize> = (0..columns)
        .map(|i| {
            (i..output_length)
                .step_by(columns)
                .map(|j| data_len[j])
                .max()
                .unwrap_or(0)
                + separator_space
        })
        .collect();
    let mut rows = Vec::new();
    for i in (0..output_length).step_by(columns) {
        let max = (i + columns).min(output_length);
        let mut row = String::new();
        for j in i..max - 1 {
            let cell = format!("{}, ", output[j]);
            row.push_str(&format!("{cell:>width$}", width = max_line_length[j - i]));
        }
        let j = max - 1;
        let width = max_line_length[j - i] - separator_space;
        row.push_str(&format!("{:>width$}", output[j]));
        rows.push(row);
    }
    if extra {
        rows.push(output[output_length].clone());
    }
    rows
}
