//! Memory channels, each command a procedure of several CI-V frames:
//!
//! * `list_memories`: one content read (`1A 00 <ch>`) per channel; an empty channel is
//!   `empty: true`, a channel the radio refuses fails the list with `radio_rejected`.
//! * `recall_memory`: the content is read first (an empty channel is refused before
//!   anything changes), then the channel is selected (`08 <ch>`), VFO mode selected
//!   (`07`: the radio stays in VFO mode whether or not `08 <ch>` left it), the channel
//!   copied into the VFO (`0A`) and the frequency and mode read back.
//! * `store_memory`: the channel is selected (`08 <ch>`), VFO mode selected (`07`), the
//!   VFO written into it (`09`) and the channel read back as the result.
//!
//! Every answer the radio gives is checked: a NAK names the step it refused, a content
//! that does not parse is an error naming the channel; a timeout fails the command.

use super::proc::{Cx, Item, Outcome, Procedure, Script, Step, Then};
use super::vfo;
use crate::profile::Profile;
use crate::radio::engine::request::CivRequest;
use crate::radio::table::answer::{Answer, MemoryChannel, MemoryEntry};
use crate::radio::table::error::{CommandError, ErrorCode};
use crate::wire::civ::{cmd, memory};

/// The content read of channel `ch`.
fn content_read(cx: &Cx, ch: u16) -> Result<CivRequest, CommandError> {
    let bytes = memory::channel_bytes(ch)
        .ok_or_else(|| CommandError::param("channel", format!("{ch} is not a channel")))?;
    let mut data = vec![cmd::ext::MEMORY_CONTENT];
    data.extend(bytes);
    Ok(CivRequest::read(cx.addr(), cmd::EXT, &data))
}

/// Channel `ch` from a `1A 00 <ch> <content>` reply.
fn channel_of_reply(
    profile: &Profile,
    ch: u16,
    data: &[u8],
) -> Result<MemoryChannel, CommandError> {
    let bad = |why: String| {
        CommandError::new(
            ErrorCode::RadioRejected,
            format!("the radio's answer for memory channel {ch} does not parse: {why}"),
        )
    };
    let content = match data {
        [cmd::ext::MEMORY_CONTENT, hi, lo, content @ ..]
            if memory::channel_of(&[*hi, *lo]) == Some(ch) =>
        {
            content
        }
        _ => return Err(bad("not this channel's content".into())),
    };
    Ok(MemoryChannel {
        channel: ch,
        content: memory::parse(content).map_err(bad)?.map(|m| MemoryEntry {
            freq_hz: m.freq_hz,
            mode: profile.mode_of_code(m.mode),
            name: m.name,
        }),
    })
}

/// Why a memory step failed: a NAK names the step.
fn failed(e: CommandError, what: &str, ch: u16) -> CommandError {
    if e.code == ErrorCode::RadioRejected {
        CommandError::new(
            ErrorCode::RadioRejected,
            format!("the radio refused {what} of memory channel {ch}"),
        )
    } else {
        e
    }
}

/// `list_memories`.
pub struct ListMemories {
    next: u16,
    last: u16,
    asked: Option<u16>,
    channels: Vec<MemoryChannel>,
}

impl ListMemories {
    /// Reads channels `first..=last`.
    pub fn new(first: u16, last: u16) -> ListMemories {
        ListMemories {
            next: first,
            last,
            asked: None,
            channels: Vec::new(),
        }
    }
}

impl Procedure for ListMemories {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        if let (Some(ch), Some(outcome)) = (self.asked.take(), last) {
            let entry = outcome
                .map_err(|e| failed(e, "the content read", ch))
                .and_then(|f| channel_of_reply(cx.profile, ch, &f.data));
            match entry {
                Ok(v) => self.channels.push(v),
                Err(e) => return Step::Done(Err(e)),
            }
        }
        if self.next > self.last {
            let channels = std::mem::take(&mut self.channels);
            return Step::Done(Ok(Answer::Memories(channels)));
        }
        let ch = self.next;
        self.next += 1;
        match content_read(cx, ch) {
            Ok(req) => {
                self.asked = Some(ch);
                Step::Send { req, retry: true }
            }
            Err(e) => Step::Done(Err(e)),
        }
    }
}

/// Which memory operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryOp {
    /// Channel into the VFO (`0A`).
    Recall,
    /// VFO into the channel (`09`).
    Store,
}

enum Phase {
    /// Recall: the content read before anything changes.
    Check,
    /// The sets (and reads) of the operation.
    Run(Box<Script>),
    /// Store: the content read after the write.
    Confirm,
    /// Finished.
    Done,
}

/// `recall_memory` / `store_memory`.
pub struct MemoryCommand {
    op: MemoryOp,
    channel: u16,
    phase: Phase,
    result: Option<MemoryChannel>,
}

impl MemoryCommand {
    /// `op` on channel `channel`.
    pub fn new(op: MemoryOp, channel: u16) -> MemoryCommand {
        MemoryCommand {
            op,
            channel,
            phase: Phase::Check,
            result: None,
        }
    }

    /// `08 <ch>`, `07`, then `0A` (and the VFO read back) or `09`.
    fn script(&self, cx: &Cx) -> Result<Script, CommandError> {
        let a = cx.addr();
        let ch = memory::channel_bytes(self.channel).ok_or_else(|| {
            CommandError::param("channel", format!("{} is not a channel", self.channel))
        })?;
        let mut items = vec![
            Item::set(CivRequest::set(a, cmd::MEMORY_SELECT, &ch), Then::Nothing),
            Item::set(CivRequest::set(a, cmd::VFO, &[]), Then::Nothing),
        ];
        match self.op {
            MemoryOp::Recall => {
                items.push(Item::set(
                    CivRequest::set(a, cmd::MEMORY_TO_VFO, &[]),
                    Then::Nothing,
                ));
                items.extend(vfo::read_all(cx));
            }
            MemoryOp::Store => items.push(Item::set(
                CivRequest::set(a, cmd::MEMORY_WRITE, &[]),
                Then::Nothing,
            )),
        }
        Ok(Script::new(items, Answer::Done))
    }

    fn read(&self, cx: &Cx) -> Step {
        match content_read(cx, self.channel) {
            Ok(req) => Step::Send { req, retry: true },
            Err(e) => Step::Done(Err(e)),
        }
    }

    /// Steps the script of the operation; a store reads the channel back after it.
    fn run(&mut self, cx: &mut Cx, mut script: Box<Script>, last: Option<Outcome>) -> Step {
        let what = match self.op {
            MemoryOp::Recall => "the recall",
            MemoryOp::Store => "the store",
        };
        match script.step(cx, last) {
            Step::Done(Err(e)) => Step::Done(Err(failed(e, what, self.channel))),
            Step::Done(Ok(_)) if self.op == MemoryOp::Store => {
                self.phase = Phase::Confirm;
                self.read(cx)
            }
            // a changed mode is seen in the mode read back (or the radio's transceive
            // report), which has the engine read the receiver's filter width again
            Step::Done(Ok(_)) => self.finish(),
            other => {
                self.phase = Phase::Run(script);
                other
            }
        }
    }

    /// The answer: the channel as read (before a recall, after a store).
    fn finish(&mut self) -> Step {
        match self.result.take() {
            Some(c) => Step::Done(Ok(Answer::Memory(c))),
            None => Step::Done(Err(CommandError::new(
                ErrorCode::RadioTimeout,
                "the memory channel was not read",
            ))),
        }
    }

    /// Applies the answer of the content read.
    fn content(&mut self, cx: &Cx, outcome: Option<Outcome>) -> Result<(), CommandError> {
        let ch = self.channel;
        let f = outcome
            .unwrap_or_else(|| Err(CommandError::new(ErrorCode::RadioTimeout, "no answer")))
            .map_err(|e| failed(e, "the content read", ch))?;
        self.result = Some(channel_of_reply(cx.profile, ch, &f.data)?);
        Ok(())
    }
}

impl Procedure for MemoryCommand {
    fn step(&mut self, cx: &mut Cx, last: Option<Outcome>) -> Step {
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Check if self.op == MemoryOp::Recall && last.is_none() => {
                self.phase = Phase::Check;
                self.read(cx)
            }
            Phase::Check => {
                if self.op == MemoryOp::Recall {
                    if let Err(e) = self.content(cx, last) {
                        return Step::Done(Err(e));
                    }
                    if self.result.as_ref().is_some_and(|c| c.content.is_none()) {
                        return Step::Done(Err(CommandError::param(
                            "channel",
                            format!("memory channel {} is empty", self.channel),
                        )));
                    }
                }
                match self.script(cx) {
                    Ok(s) => self.run(cx, Box::new(s), None),
                    Err(e) => Step::Done(Err(e)),
                }
            }
            Phase::Run(s) => self.run(cx, s, last),
            Phase::Confirm => match self.content(cx, last) {
                Ok(()) => self.finish(),
                Err(e) => Step::Done(Err(e)),
            },
            Phase::Done => self.finish(),
        }
    }
}
