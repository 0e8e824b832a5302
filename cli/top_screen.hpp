// `slipway top`'s terminal: the curses screen as one RAII object. It paints
// the lines top_view renders, reads keys, and hears SIGINT, SIGTERM, SIGHUP
// and SIGWINCH through a pipe, so that the loop wakes at once; the
// terminal is given back (endwin) on every way out: the destructor, also
// when an exception unwinds, and while a pager runs (Suspend).
#pragma once

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "top_keys.hpp"
#include "top_view.hpp"

namespace slipway::cli::top {

class Screen {
 public:
  // Throws std::runtime_error when standard input and output are not a
  // terminal curses can drive.
  Screen();
  ~Screen();
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

  std::size_t rows() const;
  std::size_t cols() const;
  void paint(const std::vector<Line>& lines);

  // The next key (curses codes: KEY_UP, 'q', ...), or nullopt when
  // `timeout` passed or a signal came first (see signal(), resized()).
  std::optional<int> next_key(std::chrono::milliseconds timeout);
  // What a curses key code does (nullopt: nothing).
  static std::optional<Key> key_for(int code);
  // The last of SIGINT, SIGTERM, SIGHUP received (0: none).
  int signal() const { return signal_; }
  // True once after the terminal changed size (the screen already follows).
  bool resized();

  // A line typed on the bottom row after `label`; nullopt on Escape or a
  // signal.
  std::optional<std::string> prompt(const std::string& label);

  // The terminal as it was before the screen (for a pager), for the
  // object's lifetime; SIGINT and SIGQUIT are ignored meanwhile (the pager
  // takes them).
  class Suspend {
   public:
    explicit Suspend(Screen& screen);
    ~Suspend();
    Suspend(const Suspend&) = delete;
    Suspend& operator=(const Suspend&) = delete;

   private:
    Screen& screen_;
    struct sigaction saved_int_ {}, saved_quit_ {};
  };

 private:
  void drain_signals();

  int signal_ = 0;
  bool resized_ = false;
};

}  // namespace slipway::cli::top
