//! A text field's editing state: text, caret (in chars), select-all, and the editing operations
//! uitest's key events map to.

/// Editing state of one TextInput.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldState {
    pub text: String,
    /// Caret position in `char`s from the start.
    pub caret: usize,
    /// Ctrl+A selected everything: the next edit replaces (or deletes) the whole text.
    pub all_selected: bool,
    /// A password field: its value can be typed and pasted into, never copied out (as on a
    /// real device, where copy is disabled for secure inputs).
    pub secret: bool,
}

impl FieldState {
    fn byte_at(&self, char_idx: usize) -> usize {
        self.text
            .char_indices()
            .nth(char_idx)
            .map(|(b, _)| b)
            .unwrap_or(self.text.len())
    }

    fn len_chars(&self) -> usize {
        self.text.chars().count()
    }

    /// Inserts `s` at the caret (replacing everything if all is selected).
    pub fn insert(&mut self, s: &str) {
        if self.all_selected {
            self.text.clear();
            self.caret = 0;
            self.all_selected = false;
        }
        let b = self.byte_at(self.caret);
        self.text.insert_str(b, s);
        self.caret += s.chars().count();
    }

    /// Backspace: deletes the char before the caret (or the selection).
    pub fn backspace(&mut self) {
        if self.take_selection() || self.caret == 0 {
            return;
        }
        let b = self.byte_at(self.caret - 1);
        self.text.remove(b);
        self.caret -= 1;
    }

    /// Forward delete: deletes the char after the caret (or the selection).
    pub fn delete_forward(&mut self) {
        if self.take_selection() || self.caret >= self.len_chars() {
            return;
        }
        let b = self.byte_at(self.caret);
        self.text.remove(b);
    }

    pub fn select_all(&mut self) {
        self.all_selected = true;
    }

    pub fn move_home(&mut self) {
        self.all_selected = false;
        self.caret = 0;
    }

    pub fn move_end(&mut self) {
        self.all_selected = false;
        self.caret = self.len_chars();
    }

    pub fn move_left(&mut self) {
        self.all_selected = false;
        self.caret = self.caret.saturating_sub(1);
    }

    pub fn move_right(&mut self) {
        self.all_selected = false;
        self.caret = (self.caret + 1).min(self.len_chars());
    }

    /// Deletes the selection if there is one; true when it did.
    fn take_selection(&mut self) -> bool {
        if self.all_selected {
            self.text.clear();
            self.caret = 0;
            self.all_selected = false;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_at_caret_with_unicode() {
        let mut f = FieldState::default();
        f.insert("héllo😀");
        assert_eq!(f.caret, 6);
        f.backspace();
        assert_eq!(f.text, "héllo");
        f.move_home();
        f.delete_forward();
        assert_eq!(f.text, "éllo");
        f.move_right();
        f.insert("世");
        assert_eq!(f.text, "é世llo");
        f.select_all();
        f.insert("x");
        assert_eq!(f.text, "x");
        f.select_all();
        f.backspace();
        assert_eq!(f.text, "");
        f.backspace();
        f.delete_forward();
        assert_eq!((f.text.as_str(), f.caret), ("", 0));
    }
}
