//! Chromium's accessibility tree over the DevTools protocol (`Accessibility.getFullAXTree`):
//! what a screen reader is given, for the accessibility tests.

use serde_json::{Value, json};

use super::cdp::Page;

/// A node of the accessibility tree.
#[derive(Debug, Clone)]
pub struct AxNode {
    /// The role (`spinbutton`, `meter`, `button`, `StaticText`, ...).
    pub role: String,
    /// The accessible name.
    pub name: String,
    /// The value (`aria-valuetext` where given).
    pub value: String,
}

impl Page {
    /// Chromium's accessibility tree of the page (what a screen reader is given): the
    /// nodes that are not ignored, as `{role, name, value}` strings (the
    /// value in words where the page gives one).
    pub fn ax_nodes(&self) -> Vec<AxNode> {
        self.call("Accessibility.enable", json!({}));
        let tree = self.call("Accessibility.getFullAXTree", json!({}));
        let text = |v: &Value| -> String {
            v.get("value")
                .map(|x| match x {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                })
                .unwrap_or_default()
        };
        tree["nodes"]
            .as_array()
            .map(|nodes| {
                nodes
                    .iter()
                    .filter(|n| n["ignored"] != true)
                    .map(|n| {
                        // a range widget's value in words (`aria-valuetext`) where it has one
                        let valuetext = n["properties"]
                            .as_array()
                            .and_then(|ps| ps.iter().find(|p| p["name"] == "valuetext"))
                            .map(|p| text(&p["value"]))
                            .unwrap_or_default();
                        AxNode {
                            role: text(&n["role"]),
                            name: text(&n["name"]),
                            value: if valuetext.is_empty() {
                                text(&n["value"])
                            } else {
                                valuetext
                            },
                        }
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}
