// One table of the catalog (its GPUs, its systems, ...): a vector of entries that the built-in
// catalog fills on first use. Parsing all ~300 kB of embedded TOML was nine tenths of a simple
// command's time (docs/performance.md, "Speed budget, third round"); a command now parses the
// files it reads: a lookup by id or alias parses that one file (found from the file names, ids
// and aliases the build extracted, catalog/embedded_data.h), a walk over the table parses the
// whole table. Reads like a std::vector<T>, which it was: every use compiles unchanged.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan {

struct EmbeddedFile;

template <typename T>
class CatalogTable {
 public:
  using value_type = T;
  using size_type = typename std::vector<T>::size_type;
  using difference_type = typename std::vector<T>::difference_type;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;

  CatalogTable() = default;
  CatalogTable(std::vector<T> items) : items_(std::move(items)) {}  // NOLINT: reads as the vector it was
  CatalogTable(std::initializer_list<T> items) : items_(items) {}
  // A copy of a table not yet filled stays lazy: it shares the (immutable) embedded text and
  // copies what has been parsed so far.
  CatalogTable(const CatalogTable& other) { copy_from(other); }
  CatalogTable(CatalogTable&& other) noexcept { move_from(std::move(other)); }
  CatalogTable& operator=(const CatalogTable& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  CatalogTable& operator=(CatalogTable&& other) noexcept {
    if (this != &other) move_from(std::move(other));
    return *this;
  }
  CatalogTable& operator=(std::vector<T> items) {
    reset(std::move(items));
    return *this;
  }
  CatalogTable& operator=(std::initializer_list<T> items) {
    reset(std::vector<T>(items));
    return *this;
  }

  // The whole table, every embedded file of its kind parsed (once, thread-safe).
  const std::vector<T>& all() const {
    if (!complete_.load(std::memory_order_acquire)) complete();
    return items_;
  }
  std::vector<T>& all() {
    if (!complete_.load(std::memory_order_acquire)) complete();
    return items_;
  }
  operator const std::vector<T>&() const { return all(); }  // NOLINT: reads as the vector it was
  operator std::vector<T>&() { return all(); }              // NOLINT

  const_iterator begin() const { return all().begin(); }
  const_iterator end() const { return all().end(); }
  const_iterator cbegin() const { return all().cbegin(); }
  const_iterator cend() const { return all().cend(); }
  iterator begin() { return all().begin(); }
  iterator end() { return all().end(); }
  size_type size() const { return all().size(); }
  bool empty() const { return all().empty(); }
  const T& operator[](size_type i) const { return all()[i]; }
  T& operator[](size_type i) { return all()[i]; }
  const T& at(size_type i) const { return all().at(i); }
  T& at(size_type i) { return all().at(i); }
  const T& front() const { return all().front(); }
  T& front() { return all().front(); }
  const T& back() const { return all().back(); }
  T& back() { return all().back(); }
  const T* data() const { return all().data(); }
  T* data() { return all().data(); }

  void push_back(const T& e) { all().push_back(e); }
  void push_back(T&& e) { all().push_back(std::move(e)); }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    return all().emplace_back(std::forward<Args>(args)...);
  }
  template <typename... Args>
  iterator insert(const_iterator pos, Args&&... args) {
    return all().insert(pos, std::forward<Args>(args)...);
  }
  iterator erase(const_iterator pos) { return all().erase(pos); }
  iterator erase(const_iterator first, const_iterator last) { return all().erase(first, last); }
  void pop_back() { all().pop_back(); }
  void clear() { reset({}); }
  void reserve(size_type n) { all().reserve(n); }
  void resize(size_type n) { all().resize(n); }

  // The entry whose id or one of whose aliases equals `key`, already normalized
  // (normalize_name), or nullptr. A table not yet filled parses only the matching file.
  const T* find_normalized(std::string_view key) const;

  // find_normalized(key) == &entry, without parsing the entry `key` names.
  bool names(std::string_view key, const T& entry) const;

  // The entries for which keep(entry) holds, in table order. A table not yet filled parses only
  // the files for which maybe(file) holds: a test on the build's index (EmbeddedFile) that holds
  // for every file whose entry keep() would keep.
  template <typename Maybe, typename Keep>
  std::vector<const T*> select(const Maybe& maybe, const Keep& keep) const {
    std::vector<const T*> out;
    if (complete_.load(std::memory_order_acquire)) {
      for (const T& e : items_) {
        if (keep(e)) out.push_back(&e);
      }
      return out;
    }
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (!maybe(*files_[i])) continue;
      const T& e = slot(i);
      if (keep(e)) out.push_back(&e);
    }
    return out;
  }

  // Makes this table the lazy view of `files` (the embedded files of its kind, in file order).
  // Used by the loader only.
  void make_lazy(std::vector<const EmbeddedFile*> files);

 private:
  void complete() const;                     // catalog/load.cpp
  const T& slot(std::size_t index) const;    // the entry of files_[index], parsed on first use

  void reset(std::vector<T> items) {
    items_ = std::move(items);
    files_.clear();
    ready_.reset();
    complete_.store(true, std::memory_order_release);
  }
  void copy_from(const CatalogTable& other);  // catalog/load.cpp (takes the loader's lock)
  void move_from(CatalogTable&& other) noexcept {
    items_ = std::move(other.items_);
    files_ = std::move(other.files_);
    ready_ = std::move(other.ready_);
    complete_.store(other.complete_.load(std::memory_order_acquire), std::memory_order_release);
    other.reset({});
  }

  // A lazy table holds one slot per file (default entries until parsed), so an entry found by
  // name keeps its address when the rest of the table is filled.
  mutable std::vector<T> items_;
  std::vector<const EmbeddedFile*> files_;           // empty for an ordinary table
  mutable std::unique_ptr<std::atomic<bool>[]> ready_;  // per slot: parsed
  mutable std::atomic<bool> complete_{true};
};

}  // namespace gpuplan
