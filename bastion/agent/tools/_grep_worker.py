"""The grep worker: run as its own process (python -I -S), so a pattern that backtracks without
end is ended by its parent's deadline. Standard library only; it reads nothing but its input.

Input: a JSON header line, then per file `<name bytes> <data bytes>\\n` and the two byte strings.
Output: one JSON object {"matches": [[file index, line number, line]], "more": bool}.
"""

import json
import re
import sys


def main() -> None:
    source = sys.stdin.buffer
    header = json.loads(source.readline())
    pattern = re.compile(header["pattern"], re.IGNORECASE if header["ignore_case"] else 0)
    limit, width = header["max_results"], header["width"]
    matches: list[list[object]] = []
    more = False
    index = 0
    while not more:
        sizes = source.readline()
        if not sizes:
            break
        name_size, data_size = (int(n) for n in sizes.split())
        source.read(name_size)
        text = source.read(data_size).decode("utf-8", "replace")
        for number, line in enumerate(text.splitlines(), start=1):
            if pattern.search(line):
                if len(matches) == limit:
                    more = True
                    break
                matches.append([index, number, line[:width]])
        index += 1
    sys.stdout.write(json.dumps({"matches": matches, "more": more}))


if __name__ == "__main__":
    main()
