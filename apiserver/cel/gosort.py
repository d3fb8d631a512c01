"""Go's sort.Slice (pattern-defeating quicksort, sort/zsortfunc.go), ported whole so that an unstable
sort leaves equal elements where Go leaves them: cel-go's sortBy sorts indices with it, and a list whose
keys tie comes out in Go's order, not in the order a stable sort keeps."""

from __future__ import annotations

from collections.abc import Callable

_MAX_INSERTION = 12
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2
_MASK64 = (1 << 64) - 1


class _Sorting:
    """The slice being sorted, with Go's Less(i, j) and Swap(i, j) over it."""

    def __init__(self, data: list[int], less: Callable[[int, int], bool]) -> None:
        self.data = data
        self._less = less

    def less(self, i: int, j: int) -> bool:
        return self._less(self.data[i], self.data[j])

    def swap(self, i: int, j: int) -> None:
        data = self.data
        data[i], data[j] = data[j], data[i]


def sorted_slice(data: list[int], less: Callable[[int, int], bool]) -> list[int]:
    """The values of `data` in the order sort.Slice(data, less) leaves them (less compares two values)."""
    sorting = _Sorting(list(data), less)
    _pdqsort(sorting, 0, len(data), len(data).bit_length())
    return sorting.data


def _insertion_sort(s: _Sorting, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and s.less(j, j - 1):
            s.swap(j, j - 1)
            j -= 1


def _sift_down(s: _Sorting, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and s.less(first + child, first + child + 1):
            child += 1
        if not s.less(first + root, first + child):
            return
        s.swap(first + root, first + child)
        root = child


def _heap_sort(s: _Sorting, a: int, b: int) -> None:
    first, lo, hi = a, 0, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(s, i, hi, first)
    for i in range(hi - 1, -1, -1):
        s.swap(first, first + i)
        _sift_down(s, lo, i, first)


def _pdqsort(s: _Sorting, a: int, b: int, limit: int) -> None:
    was_balanced = was_partitioned = True
    while True:
        length = b - a
        if length <= _MAX_INSERTION:
            _insertion_sort(s, a, b)
            return
        if limit == 0:
            _heap_sort(s, a, b)
            return
        if not was_balanced:
            _break_patterns(s, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(s, a, b)
        if hint == _DECREASING:
            _reverse_range(s, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING
        if was_balanced and was_partitioned and hint == _INCREASING and _partial_insertion_sort(s, a, b):
            return
        if a > 0 and not s.less(a - 1, pivot):
            a = _partition_equal(s, a, b, pivot)
            continue
        mid, was_partitioned = _partition(s, a, b, pivot)
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            was_balanced = left >= threshold
            _pdqsort(s, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right >= threshold
            _pdqsort(s, mid + 1, b, limit)
            b = mid


def _partition(s: _Sorting, a: int, b: int, pivot: int) -> tuple[int, bool]:
    s.swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and s.less(i, a):
        i += 1
    while i <= j and not s.less(j, a):
        j -= 1
    if i > j:
        s.swap(j, a)
        return j, True
    s.swap(i, j)
    i, j = i + 1, j - 1
    while True:
        while i <= j and s.less(i, a):
            i += 1
        while i <= j and not s.less(j, a):
            j -= 1
        if i > j:
            break
        s.swap(i, j)
        i, j = i + 1, j - 1
    s.swap(j, a)
    return j, False


def _partition_equal(s: _Sorting, a: int, b: int, pivot: int) -> int:
    s.swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not s.less(a, i):
            i += 1
        while i <= j and s.less(a, j):
            j -= 1
        if i > j:
            return i
        s.swap(i, j)
        i, j = i + 1, j - 1


def _partial_insertion_sort(s: _Sorting, a: int, b: int) -> bool:
    max_steps, shortest_shifting = 5, 50
    i = a + 1
    for _ in range(max_steps):
        while i < b and not s.less(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < shortest_shifting:
            return False
        s.swap(i, i - 1)
        if i - a >= 2:
            for j in range(i - 1, 0, -1):
                if not s.less(j, j - 1):
                    break
                s.swap(j, j - 1)
        if b - i >= 2:
            for j in range(i + 1, b):
                if not s.less(j, j - 1):
                    break
                s.swap(j, j - 1)
    return False


def _break_patterns(s: _Sorting, a: int, b: int) -> None:
    length = b - a
    if length < 8:
        return
    random = length  # xorshift seeded with the length
    modulus = 1 << length.bit_length()
    start = a + (length // 4) * 2 - 1
    for idx in range(start, start + 3):
        random ^= (random << 13) & _MASK64
        random ^= random >> 7
        random ^= (random << 17) & _MASK64
        other = random & (modulus - 1)
        if other >= length:
            other -= length
        s.swap(idx, a + other)


def _choose_pivot(s: _Sorting, a: int, b: int) -> tuple[int, int]:
    shortest_ninther, max_swaps = 50, 4 * 3
    length = b - a
    swaps = [0]
    i, j, k = a + length // 4 * 1, a + length // 4 * 2, a + length // 4 * 3
    if length >= 8:
        if length >= shortest_ninther:
            i = _median_adjacent(s, i, swaps)
            j = _median_adjacent(s, j, swaps)
            k = _median_adjacent(s, k, swaps)
        j = _median(s, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING
    if swaps[0] == max_swaps:
        return j, _DECREASING
    return j, _UNKNOWN


def _order2(s: _Sorting, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
    if s.less(b, a):
        swaps[0] += 1
        return b, a
    return a, b


def _median(s: _Sorting, a: int, b: int, c: int, swaps: list[int]) -> int:
    a, b = _order2(s, a, b, swaps)
    b, c = _order2(s, b, c, swaps)
    a, b = _order2(s, a, b, swaps)
    return b


def _median_adjacent(s: _Sorting, a: int, swaps: list[int]) -> int:
    return _median(s, a - 1, a, a + 1, swaps)


def _reverse_range(s: _Sorting, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        s.swap(i, j)
        i, j = i + 1, j - 1
