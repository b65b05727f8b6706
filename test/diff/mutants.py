#!/usr/bin/env python3
"""Negative controls for the differential tests: plants one deliberate bug
in a pass's output, so that a test can check the harness catches it.

  mutants.py NAME MODULE.spv         # rewrites MODULE.spv in place

The module is disassembled (spirv-dis --raw-id), the instructions the pass
emitted for NAME's step are found by their shape and changed, and the text
is assembled and validated again. Every match in the module is changed (as
the pass would have done in each rewrite); a mutant that matches nothing
fails (exit 1): a control that plants no bug proves nothing.

batch-uniform-loads (docs/design/batch-uniform-loads.md, "Negative
controls"):
  owner-lane-k       the owner of slot k is lane k, not lane first + k
  whole-subgroup     the batch is every lane of the loop, not the run of
                     consecutive lanes from the first
  first-whole-batch  read=shuffle-or-first away from 8 lanes: the batch is
                     left at the run of lanes instead of one slot
  no-exit-ballot     the fill's guard leaves out the loop's exit tests
  one-more-trip      the one-exit forms' trip count one too high in the
                     batch where the loop ends
  no-bounds          no bounds check on a value read ahead of time
"""
import re
import subprocess
import sys
import tempfile

INST = re.compile(r"^\s*(?:%(\d+) = )?(Op\w+)(.*)$")


class Module:
    """The disassembly, one instruction per line, indexed by result id."""

    def __init__(self, text):
        self.lines = text.splitlines()
        self.defs = {}
        for i, line in enumerate(self.lines):
            m = INST.match(line)
            if m and m.group(1):
                self.defs[m.group(1)] = i
        self.bound = max(int(i) for i in self.defs) + 1

    def inst(self, index):
        """(result, opcode, operands) of line |index|; None for no instruction."""
        m = INST.match(self.lines[index])
        if not m:
            return None
        return m.group(1), m.group(2), m.group(3).split()

    def op(self, ident):
        """The opcode defining %ident (None for no definition)."""
        i = self.defs.get(ident.lstrip("%"))
        return self.inst(i)[1] if i is not None else None

    def operands(self, ident):
        return self.inst(self.defs[ident.lstrip("%")])[2]

    def find(self, opcode, test):
        """Lines of |opcode| instructions whose (result, operands) pass |test|."""
        found = []
        for i in range(len(self.lines)):
            inst = self.inst(i)
            if inst and inst[1] == opcode and test(inst[0], inst[2]):
                found.append(i)
        return found

    def set_operands(self, index, operands):
        result, opcode, _ = self.inst(index)
        indent = re.match(r"^\s*", self.lines[index]).group(0)
        self.lines[index] = indent + (f"%{result} = " if result else "") + " ".join(
            [opcode] + operands)

    def new_id(self):
        self.bound += 1
        return str(self.bound - 1)


def is_first_lane(m, ident):
    return m.op(ident) == "OpGroupNonUniformBroadcastFirst"


def is_batch_count(m, ident):
    """The preheader's batch size: a Reduce bit count of a ballot."""
    return m.op(ident) == "OpGroupNonUniformBallotBitCount" and "Reduce" in m.operands(ident)


def is_rank(m, ident):
    return (m.op(ident) == "OpGroupNonUniformBallotBitCount"
            and "ExclusiveScan" in m.operands(ident))


def in_run(m, ident):
    """(lane - first) == rank: whether a lane is in the run from the first."""
    if m.op(ident) != "OpIEqual":
        return False
    diff = m.operands(ident)[1]
    return m.op(diff) == "OpISub" and is_first_lane(m, m.operands(diff)[2])


def owner_lane_k(m):
    # owner = first + slot  ->  owner = slot
    hits = m.find("OpIAdd", lambda r, ops: is_first_lane(m, ops[1]))
    for i in hits:
        result, _, ops = m.inst(i)
        m.lines[i] = re.sub(r"OpIAdd.*", f"OpCopyObject {ops[0]} {ops[2]}", m.lines[i])
    return hits


def whole_subgroup(m):
    # Ballot(in_run) -> Ballot(the first ballot's true)
    hits = m.find("OpGroupNonUniformBallot", lambda r, ops: in_run(m, ops[2]))
    for i in hits:
        ops = m.inst(i)[2]
        rank = m.find("OpGroupNonUniformBallotBitCount",
                      lambda r, o: "ExclusiveScan" in o)
        everyone = m.operands(m.inst(rank[0])[2][3])[2]
        m.set_operands(i, ops[:2] + [everyone])
    return hits


def first_whole_batch(m):
    # batch = select(shuffle here, batch, 1) -> select(.., batch, batch)
    hits = m.find("OpSelect", lambda r, ops: is_batch_count(m, ops[2]))
    for i in hits:
        ops = m.inst(i)[2]
        m.set_operands(i, ops[:3] + [ops[2]])
    return hits


def slot_count(m, ident):
    """select(any && below, leaving + 1, batch): the slots that run."""
    if m.op(ident) != "OpSelect":
        return False
    ops = m.operands(ident)
    return (m.op(ops[1]) == "OpLogicalAnd" and m.op(ops[2]) == "OpIAdd"
            and m.op(m.operands(ops[1])[2]) == "OpULessThan"
            and m.operands(m.operands(ops[1])[2])[1] == ops[2])


def no_exit_ballot(m):
    # guard = rank < slots  ->  rank < batch
    hits = m.find("OpULessThan", lambda r, ops: is_rank(m, ops[1]) and slot_count(m, ops[2]))
    for i in hits:
        ops = m.inst(i)[2]
        m.set_operands(i, ops[:2] + [m.operands(ops[2])[3]])
    return hits


def trip_count(m, ident):
    """select(ended, last, batch), ended = any && (first's slot) < batch."""
    if m.op(ident) != "OpSelect":
        return False
    ops = m.operands(ident)
    if m.op(ops[1]) != "OpLogicalAnd":
        return False
    inside = m.operands(ops[1])[2]
    if m.op(inside) != "OpULessThan":
        return False
    leaving = m.operands(inside)[1]
    return m.op(leaving) == "OpISub" and is_first_lane(m, m.operands(leaving)[2])


def one_more_trip(m):
    # trips = select(ended, last, batch) -> select(ended, last + 1, batch)
    hits = m.find("OpSelect", lambda r, ops: trip_count(m, r))
    for i in reversed(hits):
        ops = m.inst(i)[2]
        more = m.new_id()
        m.lines.insert(i, f"%{more} = OpIAdd {ops[0]} {ops[2]} {unsigned_one(m, ops[0])}")
        m.set_operands(i + 1, ops[:2] + [f"%{more}"] + ops[3:])
    return hits


def unsigned_one(m, uint_type):
    for ident, i in m.defs.items():
        inst = m.inst(i)
        if inst[1] == "OpConstant" and inst[2] == [uint_type, "1"]:
            return "%" + ident
    raise SystemExit("mutants.py: no uint constant 1 in the module")


def no_bounds(m):
    # guard = guard && inside  ->  guard: the load block's condition, an And
    # whose second operand is the bounds test emitted right before it (or
    # true, for a read that needs none).
    hits = []
    for i in range(1, len(m.lines) - 1):
        inst, after, before = m.inst(i), m.inst(i + 1), m.inst(i - 1)
        if not inst or inst[1] != "OpLogicalAnd" or not after or after[1] != "OpSelectionMerge":
            continue
        ops = inst[2]
        inside = ops[2].lstrip("%")
        if (before and before[0] == inside) or m.op(inside) == "OpConstantTrue":
            m.lines[i] = re.sub(r"OpLogicalAnd.*", f"OpCopyObject {ops[0]} {ops[1]}", m.lines[i])
            hits.append(i)
    return hits


MUTANTS = {
    "owner-lane-k": owner_lane_k,
    "whole-subgroup": whole_subgroup,
    "first-whole-batch": first_whole_batch,
    "no-exit-ballot": no_exit_ballot,
    "one-more-trip": one_more_trip,
    "no-bounds": no_bounds,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in MUTANTS:
        print(__doc__, file=sys.stderr)
        return 2
    name, path = sys.argv[1], sys.argv[2]
    text = subprocess.run(["spirv-dis", "--raw-id", path], capture_output=True, text=True,
                          check=True).stdout
    m = Module(text)
    hits = MUTANTS[name](m)
    if not hits:
        print(f"mutants.py: {name} matches nothing in {path}: no bug planted")
        return 1
    print(f"mutant {name}: {len(hits)} instruction(s) changed")
    version = re.search(r"^; Version: (\d+\.\d+)", text, re.M).group(1)
    with tempfile.NamedTemporaryFile("w", suffix=".spvasm") as f:
        f.write("\n".join(m.lines) + "\n")
        f.flush()
        subprocess.run(["spirv-as", "--preserve-numeric-ids", "--target-env", "spv" + version,
                        f.name, "-o", path], check=True)
    subprocess.run(["spirv-val", "--target-env", "spv" + version, path], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
