// Server-sent events over fetch. EventSource cannot send an Authorization
// header, so the app reads the stream itself: SSEParser turns text, in
// chunks cut anywhere, into events, following the HTML standard's rules
// (lines end in CRLF, LF or CR; "data" lines join with LF; a comment line
// starts with ":"; one space after the colon is dropped; "id" persists
// until the next one; an event without data is not dispatched).

export class SSEParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buf = "";
    this.data = [];
    this.type = "";
    this.lastEventId = "";
    this.sawCR = false; // the last chunk ended in CR: a LF starting the next one ends no line
  }

  // push feeds a chunk of text.
  push(chunk) {
    if (this.sawCR && chunk.startsWith("\n")) chunk = chunk.slice(1);
    this.sawCR = false;
    this.buf += chunk;
    let start = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const c = this.buf[i];
      if (c !== "\n" && c !== "\r") continue;
      this.line(this.buf.slice(start, i));
      if (c === "\r") {
        if (i + 1 === this.buf.length) this.sawCR = true;
        else if (this.buf[i + 1] === "\n") i++;
      }
      start = i + 1;
    }
    this.buf = this.buf.slice(start);
  }

  line(line) {
    if (line === "") {
      this.dispatch();
      return;
    }
    if (line.startsWith(":")) return; // a comment: the server's heartbeat
    const colon = line.indexOf(":");
    let field = line, value = "";
    if (colon >= 0) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
    }
    switch (field) {
      case "event": this.type = value; break;
      case "data": this.data.push(value); break;
      case "id": if (!value.includes("\0")) this.lastEventId = value; break;
      // "retry" and unknown fields: ignored; the app keeps its own back-off.
    }
  }

  dispatch() {
    const data = this.data;
    const type = this.type || "message";
    this.data = [];
    this.type = "";
    if (data.length === 0) return;
    this.onEvent({ type, data: data.join("\n"), id: this.lastEventId });
  }
}

// readEvents reads an SSE response body to its end, calling onEvent for each
// event ({type, data, id}). It resolves when the stream ends and rejects
// when reading fails (the connection dropped, or signal aborted it).
export async function readEvents(response, onEvent) {
  const parser = new SSEParser(onEvent);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return parser.lastEventId;
      parser.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}
