// A small structural checker for the HTML/XML we write: every element closed in order (HTML void
// elements excepted), no <script>, no reference to anything outside the file. Returns "" when
// fine, else what is wrong.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace gpubench::compare::testing {

inline std::string check_markup(const std::string& doc, bool html) {
  static const std::vector<std::string> k_void = {"meta", "br", "hr", "img", "input", "link"};
  std::vector<std::string> stack;
  std::size_t i = 0;
  while ((i = doc.find('<', i)) != std::string::npos) {
    if (doc.compare(i, 4, "<!--") == 0) {
      i = doc.find("-->", i);
      if (i == std::string::npos) return "unterminated comment";
      continue;
    }
    std::size_t end = doc.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = doc.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '!' || tag[0] == '?') continue;  // doctype, xml declaration
    if (tag.find('<') != std::string::npos) return "'<' inside a tag: " + tag;
    bool closing = tag[0] == '/';
    bool self_closing = tag.back() == '/';
    std::string name;
    for (std::size_t k = closing ? 1 : 0;
         k < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[k])) || tag[k] == '-');
         ++k) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(tag[k])));
    }
    if (name == "script") return "contains a <script>";
    for (const char* attr : {"src=", "href=", "url("}) {
      std::size_t a = tag.find(attr);
      if (a != std::string::npos && tag.find("http", a) != std::string::npos) {
        return "external reference in <" + tag + ">";
      }
      if (a != std::string::npos && std::string(attr) == "src=")
        return "src attribute in <" + tag + ">";
    }
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> closes <" + (stack.empty() ? "nothing" : stack.back()) + ">";
      }
      stack.pop_back();
    } else if (!self_closing &&
               !(html && std::find(k_void.begin(), k_void.end(), name) != k_void.end())) {
      stack.push_back(name);
    }
  }
  if (!stack.empty()) return "<" + stack.back() + "> never closed";
  return "";
}

}  // namespace gpubench::compare::testing
