//! The state as its one writer (the engine) holds it: every change is recorded, with the
//! events it raises, as a [`StateUpdate`] for the shell to publish (the store stamps the
//! revision and `updatedAt` and tells the subscribers). No clock, no lock, no callback:
//! changing the state is plain data.

use std::collections::VecDeque;

use crate::radio::state::content::StateContent;
use crate::radio::state::events::{RadioEvent, derive_events};

/// One change for the shell to publish, in the order it was made.
#[derive(Debug, Clone, PartialEq)]
pub enum StateUpdate {
    /// The content is now this; the change raised these events.
    Changed {
        /// The whole content after the change (its `ws_clients` are the store's own).
        content: Box<StateContent>,
        /// Events derived from the change.
        events: Vec<RadioEvent>,
    },
    /// An event that changes nothing (a transmit timeout, an unkey that failed).
    Event(RadioEvent),
}

impl StateUpdate {
    /// The events this update raises.
    pub fn events(&self) -> &[RadioEvent] {
        match self {
            StateUpdate::Changed { events, .. } => events,
            StateUpdate::Event(e) => std::slice::from_ref(e),
        }
    }
}

/// See the module docs.
#[derive(Debug)]
pub struct TrackedState {
    content: StateContent,
    updates: VecDeque<StateUpdate>,
}

impl TrackedState {
    /// Starts at `content` (nothing to publish yet).
    pub fn new(content: StateContent) -> TrackedState {
        TrackedState {
            content,
            updates: VecDeque::new(),
        }
    }

    /// Reads the content.
    pub fn read<R>(&self, f: impl FnOnce(&StateContent) -> R) -> R {
        f(&self.content)
    }

    /// The content.
    pub fn content(&self) -> &StateContent {
        &self.content
    }

    /// Changes the content; a change that shows (the content differs afterwards) is
    /// recorded with its events.
    pub fn modify<R>(&mut self, f: impl FnOnce(&mut StateContent) -> R) -> R {
        let before = self.content.clone();
        let r = f(&mut self.content);
        if self.content != before {
            let events = derive_events(&before, &self.content);
            self.updates.push_back(StateUpdate::Changed {
                content: Box::new(self.content.clone()),
                events,
            });
        }
        r
    }

    /// Records an event that is not a change of the content.
    pub fn notify(&mut self, event: RadioEvent) {
        self.updates.push_back(StateUpdate::Event(event));
    }

    /// The oldest update not taken yet.
    pub fn poll_update(&mut self) -> Option<StateUpdate> {
        self.updates.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::state::{RadioState, ReceiverState};
    use crate::wire::civ::Mode;

    fn content() -> StateContent {
        let main = ReceiverState::tuned(14_074_000, Mode::Usb, false);
        let mut radio = RadioState::new(main, None);
        radio.ptt = Some(false);
        StateContent::connecting(radio, "IC-705")
    }

    #[test]
    fn only_changes_that_show_are_recorded_in_order_with_their_events() {
        let mut s = TrackedState::new(content());
        s.modify(|c| c.radio.main.freq_hz = Some(14_074_000));
        assert_eq!(s.poll_update(), None, "no change, nothing to publish");
        s.modify(|c| c.radio.ptt = Some(true));
        s.notify(RadioEvent::TxTimeout {
            released: true,
            after_s: 180,
        });
        s.modify(|c| c.radio.ptt = None);
        let first = s.poll_update().expect("the key");
        assert_eq!(first.events(), &[RadioEvent::Ptt(Some(true))]);
        let StateUpdate::Changed { content, .. } = &first else {
            panic!("a change: {first:?}")
        };
        assert_eq!(content.radio.ptt, Some(true), "the content as it was then");
        assert_eq!(
            s.poll_update().map(|u| u.events().to_vec()),
            Some(vec![RadioEvent::TxTimeout {
                released: true,
                after_s: 180
            }])
        );
        assert_eq!(
            s.poll_update().map(|u| u.events().to_vec()),
            Some(vec![RadioEvent::Ptt(None)])
        );
        assert_eq!(s.poll_update(), None);
        assert_eq!(s.content().radio.ptt, None);
    }
}
