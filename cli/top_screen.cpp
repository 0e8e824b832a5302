// `slipway top`'s curses screen (see top_screen.hpp).
#include "top_screen.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include <curses.h>  // last: its macros (timeout, erase, move, ...) would rename names above

namespace slipway::cli::top {
namespace {

// The one screen's signal pipe (written by the handler, read by next_key)
// and the handlers it replaced.
int g_signal_pipe[2] = {-1, -1};
SCREEN* g_screen = nullptr;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH};
struct sigaction g_previous[std::size(kSignals)];

extern "C" void on_signal(int sig) {
  const int saved = errno;
  const unsigned char byte = static_cast<unsigned char>(sig);
  [[maybe_unused]] ssize_t n = ::write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

void restore_handlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &g_previous[i], nullptr);
}

void close_pipe() {
  for (int& fd : g_signal_pipe) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

enum Pair : short { kHeading = 1, kSelected = 2, kAlert = 3 };

attr_t attribute(Line::Style style) {
  const bool color = has_colors();
  switch (style) {
    case Line::Style::plain: return A_NORMAL;
    case Line::Style::heading: return color ? COLOR_PAIR(kHeading) : A_REVERSE;
    case Line::Style::selected: return color ? COLOR_PAIR(kSelected) : A_BOLD | A_UNDERLINE;
    case Line::Style::alert: return color ? COLOR_PAIR(kAlert) | A_BOLD : A_BOLD;
  }
  return A_NORMAL;
}

}  // namespace

Screen::Screen() {
  if (!::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO)) {
    throw std::runtime_error("standard input and output must be a terminal (--once prints one frame without one)");
  }
  if (g_screen) throw std::logic_error("slipway top: one screen at a time");
  if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("cannot make a pipe for signals");
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a signal ends the wait at once
  for (std::size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &action, &g_previous[i]);
  std::setlocale(LC_CTYPE, "");  // UTF-8 text; numbers keep the C locale
  g_screen = newterm(nullptr, stdout, stdin);
  if (!g_screen) {
    restore_handlers();
    close_pipe();
    const char* term = std::getenv("TERM");
    throw std::runtime_error(std::string("cannot drive this terminal (TERM=") + (term ? term : "") +
                             "); set TERM, or use --once");
  }
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  set_escdelay(25);
  curs_set(0);
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(kHeading, COLOR_BLACK, COLOR_GREEN);
    init_pair(kSelected, COLOR_BLACK, COLOR_CYAN);
    init_pair(kAlert, COLOR_RED, -1);
  }
}

Screen::~Screen() {
  endwin();
  delscreen(g_screen);
  g_screen = nullptr;
  restore_handlers();
  close_pipe();
  std::fflush(stdout);
}

std::size_t Screen::rows() const { return static_cast<std::size_t>(LINES > 0 ? LINES : 0); }
std::size_t Screen::cols() const { return static_cast<std::size_t>(COLS > 0 ? COLS : 0); }

void Screen::paint(const std::vector<Line>& lines) {
  werase(stdscr);
  const std::size_t width = cols();
  for (std::size_t i = 0; i < lines.size() && i < rows(); ++i) {
    const attr_t attr = attribute(lines[i].style);
    std::string text = lines[i].text;
    if (lines[i].style == Line::Style::heading || lines[i].style == Line::Style::selected) {
      text.resize(width, ' ');  // the bar spans the line
    }
    wattrset(stdscr, attr);
    // The bottom right cell cannot be written without scrolling: one less there.
    const int n = static_cast<int>(i + 1 == rows() && text.size() >= width ? width - 1 : text.size());
    mvwaddnstr(stdscr, static_cast<int>(i), 0, text.c_str(), n);
  }
  wattrset(stdscr, A_NORMAL);
  wnoutrefresh(stdscr);
  doupdate();
}

void Screen::drain_signals() {
  unsigned char bytes[64];
  ssize_t n;
  while ((n = ::read(g_signal_pipe[0], bytes, sizeof bytes)) > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      if (bytes[i] == SIGWINCH) {
        struct winsize size {};
        if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0 && size.ws_col > 0) {
          resizeterm(size.ws_row, size.ws_col);
        }
        resized_ = true;
      } else {
        signal_ = bytes[i];
      }
    }
  }
}

bool Screen::resized() {
  const bool was = resized_;
  resized_ = false;
  return was;
}

std::optional<int> Screen::next_key(std::chrono::milliseconds timeout) {
  const int buffered = wgetch(stdscr);  // a key curses read along with an earlier one
  if (buffered != ERR) return buffered;
  struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {g_signal_pipe[0], POLLIN, 0}};
  const int ms = timeout.count() < 0 ? -1 : static_cast<int>(std::min<long long>(timeout.count(), 1 << 30));
  if (::poll(fds, 2, ms) <= 0) return std::nullopt;
  if (fds[1].revents & POLLIN) {
    drain_signals();
    return std::nullopt;
  }
  if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
    signal_ = SIGHUP;  // the terminal went away
    return std::nullopt;
  }
  const int key = wgetch(stdscr);
  if (key == ERR) return std::nullopt;
  return key;
}

std::optional<Key> Screen::key_for(int code) {
  switch (code) {
    case 'k': case KEY_UP: return Key::up;
    case 'j': case KEY_DOWN: return Key::down;
    case 'b': case KEY_PPAGE: return Key::page_up;
    case ' ': case KEY_NPAGE: return Key::page_down;
    case 'g': case KEY_HOME: return Key::home;
    case 'G': case KEY_END: return Key::end;
    case 's': return Key::sort;
    case 'f': return Key::filter;
    case '/': return Key::find;
    case 'l': case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT: return Key::open;
    case 'h': case 27: case KEY_LEFT: case KEY_BACKSPACE: case 127: return Key::back;
    case 'q': case 'Q': return Key::quit;
    default: return std::nullopt;
  }
}

std::optional<std::string> Screen::prompt(const std::string& label) {
  constexpr std::size_t kMaxText = 255;
  std::string text;
  const int row = static_cast<int>(rows()) - 1;
  curs_set(1);
  std::optional<std::string> result;
  while (true) {
    wattrset(stdscr, A_NORMAL);
    mvwaddnstr(stdscr, row, 0, (label + text).c_str(), static_cast<int>(cols()) - 1);
    wclrtoeol(stdscr);
    wrefresh(stdscr);
    auto key = next_key(std::chrono::milliseconds(-1));
    if (signal_) break;
    if (!key) continue;
    if (*key == 27) break;  // Escape
    if (*key == '\n' || *key == '\r' || *key == KEY_ENTER) {
      result = text;
      break;
    }
    if (*key == KEY_BACKSPACE || *key == 127 || *key == 8) {
      if (!text.empty()) text.pop_back();
    } else if (*key >= 0x20 && *key < 0x7f && text.size() < kMaxText) {
      text += static_cast<char>(*key);
    }
  }
  curs_set(0);
  return result;
}

Screen::Suspend::Suspend(Screen& screen) : screen_(screen) {
  def_prog_mode();
  endwin();
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &saved_int_);
  ::sigaction(SIGQUIT, &ignore, &saved_quit_);
}

Screen::Suspend::~Suspend() {
  ::sigaction(SIGINT, &saved_int_, nullptr);
  ::sigaction(SIGQUIT, &saved_quit_, nullptr);
  reset_prog_mode();
  clearok(curscr, TRUE);
  screen_.resized_ = true;  // the caller paints the whole screen again
}

}  // namespace slipway::cli::top
