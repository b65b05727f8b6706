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

workgroup-reduce (test/diff/workgroup-reduce/negative_controls.test):
  first-slot-only    the fold reads slot 0 on every trip: the first
                     subgroup's reduction is the result
  no-identity        invocations past the tree's elements are not replaced
                     by the identity before the subgroup reduction
  no-slot-barrier    no barrier between the slots' writes and their fold
  merge-any-barrier  the slot barrier left to the next barrier of the
                     function although the slots are read before it
  mix-rows           the fold of row 1 of a tree over rows reads row 0's
                     slots
  sink-past-write    a later write to a tree's array (the first store to
                     it after its slot barrier, at an index other than the
                     subgroup's) moved to right after that barrier: the fold
                     reads the new values, as a fold moved to the result's
                     use past that write would
  pair-no-nan-test   a pair tree with float keys: NaN keys drop no element
  pair-tie-flip      a pair tree's ties go the other way: toward the other
                     index (ties by index), or toward the other position in
                     the tree (ties keep the element already there)
  pair-no-bound      a pair tree with a uniform bound (t + s < n): the
                     elements from n on take part
  pair-bound-no-first  the same, element 0 left out too when n is 0
  spec-rows-unguarded  rows counted by specialization constants: the
                     rewrite for their defaults runs for every value
  row-select-swap    a reader in a loop over rows gets another row's
                     result
  no-store-back      a tree whose later loads uniform branches decide: its
                     result is not stored back (the stores under the test
                     LocalInvocationIndex == k go)
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


# workgroup-reduce: the slots are an array indexed by SubgroupId where one
# elected lane per subgroup stores, and the fold reads them in a loop.

def builtin_loads(m, builtin):
    """Results of OpLoads of the variable decorated BuiltIn |builtin|."""
    variables = {inst[2][0] for inst in map(m.inst, range(len(m.lines)))
                 if inst and inst[1] == "OpDecorate" and inst[2][1:] == ["BuiltIn", builtin]}
    return {"%" + r for r, i in m.defs.items()
            if m.inst(i)[1] == "OpLoad" and m.inst(i)[2][1] in variables}


def slot_vars(m):
    """The arrays a subgroup's elected lane writes at [.., SubgroupId]."""
    subgroup = builtin_loads(m, "SubgroupId")
    found = set()
    for i in m.find("OpStore", lambda r, ops: m.op(ops[0]) == "OpAccessChain"):
        chain = m.operands(m.inst(i)[2][0])
        if chain[-1] in subgroup:
            found.add(chain[1])
    return found


def slot_reads(m):
    """Lines of the fold's access chains: a slot array at a loop's counter."""
    slots = slot_vars(m)
    return m.find("OpAccessChain", lambda r, ops: ops[1] in slots and m.op(ops[-1]) == "OpPhi")


def constant(m, type_id, value):
    for ident, i in m.defs.items():
        inst = m.inst(i)
        if inst[1] == "OpConstant" and inst[2] == [type_id, value]:
            return "%" + ident
    raise SystemExit(f"mutants.py: no constant {value} of {type_id} in the module")


def first_slot_only(m):
    # tmp[i] -> tmp[0] in the fold
    hits = slot_reads(m)
    for i in hits:
        ops = m.inst(i)[2]
        m.set_operands(i, ops[:-1] + [constant(m, m.operands(ops[-1])[0], "0")])
    return hits


def mix_rows(m):
    # tmp[1][i] -> tmp[0][i] in the fold
    hits = [i for i in slot_reads(m) if len(m.inst(i)[2]) == 4
            and m.op(m.inst(i)[2][2]) == "OpConstant" and m.operands(m.inst(i)[2][2])[1] == "1"]
    for i in hits:
        ops = m.inst(i)[2]
        m.set_operands(i, ops[:2] + [constant(m, m.operands(ops[2])[0], "0"), ops[3]])
    return hits


def no_identity(m):
    # x = select(tid < N, x, identity) before a Reduce -> x
    tid = builtin_loads(m, "LocalInvocationIndex")
    reduced = {inst[2][-1] for inst in map(m.inst, range(len(m.lines)))
               if inst and inst[1].startswith("OpGroupNonUniform") and "Reduce" in inst[2]}

    def partial(r, ops):
        return ("%" + r in reduced and m.op(ops[1]) == "OpULessThan"
                and m.operands(ops[1])[1] in tid and m.op(m.operands(ops[1])[2]) == "OpConstant")
    hits = m.find("OpSelect", partial)
    for i in hits:
        ops = m.inst(i)[2]
        m.lines[i] = re.sub(r"OpSelect.*", f"OpCopyObject {ops[0]} {ops[2]}", m.lines[i])
    return hits


def slot_barriers(m):
    """Lines of the barriers that open the block after a slot write's if."""
    slots = slot_vars(m)
    hits = []
    for i in m.find("OpControlBarrier", lambda r, ops: True):
        label = m.inst(i - 1)
        if not label or label[1] != "OpLabel":
            continue
        j = i - 2
        while m.inst(j) and m.inst(j)[1] != "OpLabel":
            inst = m.inst(j)
            if (inst[1] == "OpStore" and m.op(inst[2][0]) == "OpAccessChain"
                    and m.operands(inst[2][0])[1] in slots):
                hits.append(i)
                break
            j -= 1
    return hits


def remove_lines(m, hits):
    for i in reversed(hits):
        del m.lines[i]
    return hits


def no_slot_barrier(m):
    return remove_lines(m, slot_barriers(m))


def merge_any_barrier(m):
    # The slot barriers that a later barrier of the same function follows.
    def later_barrier(i):
        for line in m.lines[i + 1:]:
            if "OpFunctionEnd" in line:
                return False
            if "OpControlBarrier" in line:
                return True
        return False
    return remove_lines(m, [i for i in slot_barriers(m) if later_barrier(i)])


def tests_nan(m, ident, depth=0):
    op = m.op(ident)
    if op == "OpIsNan":
        return True
    if op != "OpLogicalOr" or depth > 64:
        return False
    return any(tests_nan(m, x, depth + 1) for x in m.operands(ident)[1:])


def pair_no_nan_test(m):
    # in = in && !(isnan(..) || ..) -> in
    hits = m.find("OpLogicalAnd", lambda r, ops: m.op(ops[2]) == "OpLogicalNot"
                  and tests_nan(m, m.operands(ops[2])[1]))
    for i in hits:
        ops = m.inst(i)[2]
        m.lines[i] = re.sub(r"OpLogicalAnd.*", f"OpCopyObject {ops[0]} {ops[1]}", m.lines[i])
    return hits


def bound_tests(m, ops):
    """in && (tid < n || tid == 0): the pair tree's uniform bound."""
    if m.op(ops[2]) != "OpLogicalOr":
        return False
    below, first = m.operands(ops[2])[1:3]
    return m.op(below) == "OpULessThan" and m.op(first) == "OpIEqual"


def pair_no_bound(m):
    # in = in && (tid < n || tid == 0) -> in
    hits = m.find("OpLogicalAnd", lambda r, ops: bound_tests(m, ops))
    for i in hits:
        ops = m.inst(i)[2]
        m.lines[i] = re.sub(r"OpLogicalAnd.*", f"OpCopyObject {ops[0]} {ops[1]}", m.lines[i])
    return hits


def pair_bound_no_first(m):
    # (tid < n || tid == 0) -> tid < n: element 0 dropped when n = 0
    hits = m.find("OpLogicalAnd", lambda r, ops: bound_tests(m, ops))
    for i in hits:
        ops = m.inst(i)[2]
        below = m.operands(ops[2])[1]
        m.lines[i] = re.sub(r"OpLogicalAnd.*", f"OpLogicalAnd {ops[0]} {ops[1]} {below}", m.lines[i])
    return hits


def spec_rows_unguarded(m):
    # fast && (ROWS == default) -> fast: the rewrite for other row counts
    hits = m.find("OpLogicalAnd", lambda r, ops: m.op(ops[2]) == "OpIEqual"
                  and m.op(m.operands(ops[2])[1]) == "OpSpecConstant")
    for i in hits:
        ops = m.inst(i)[2]
        m.lines[i] = re.sub(r"OpLogicalAnd.*", f"OpCopyObject {ops[0]} {ops[1]}", m.lines[i])
    return hits


def row_select_swap(m):
    # row == k ? result[k] : other -> the other way (a reader in a loop
    # over rows gets another row's result)
    def is_row_test(cond):
        if m.op(cond) != "OpIEqual":
            return False
        row = m.operands(cond)[1]
        return m.op(row) == "OpIAdd" and any(m.op(x) == "OpIMul" for x in m.operands(row)[1:])
    hits = m.find("OpSelect", lambda r, ops: is_row_test(ops[1]))
    for i in hits:
        ops = m.inst(i)[2]
        m.set_operands(i, [ops[0], ops[1], ops[3], ops[2]])
    return hits


def sink_past_write(m):
    subgroup = builtin_loads(m, "SubgroupId")
    hits = []
    for b in reversed(slot_barriers(m)):
        var = slot_var_of_barrier(m, b)
        j = b + 1
        while j < len(m.lines) and "OpFunctionEnd" not in m.lines[j]:
            inst = m.inst(j)
            if (inst and inst[1] == "OpStore" and m.op(inst[2][0]) == "OpAccessChain"
                    and m.operands(inst[2][0])[1] == var
                    and m.operands(inst[2][0])[-1] not in subgroup):
                move_up(m, j, b)
                m.__init__("\n".join(m.lines))
                hits.append(b)
                break
            j += 1
    return hits


def slot_var_of_barrier(m, b):
    j = b - 2
    while m.inst(j)[1] != "OpStore" or m.op(m.inst(j)[2][0]) != "OpAccessChain":
        j -= 1
    return m.operands(m.inst(j)[2][0])[1]


def move_up(m, store, barrier):
    """Moves line |store| and what it uses from lines (barrier, store) to
    right after line |barrier|."""
    moved, todo = {store}, [store]
    while todo:
        for x in m.inst(todo.pop())[2]:
            i = m.defs.get(x.lstrip("%"))
            if i is not None and barrier < i < store and i not in moved and m.op(x) != "OpPhi":
                moved.add(i)
                todo.append(i)
    lines = [m.lines[i] for i in sorted(moved)]
    for i in sorted(moved, reverse=True):
        del m.lines[i]
    m.lines[barrier + 1:barrier + 1] = lines


def index_reduce(m, r, ops):
    """best = Min/Max(select(holds, index, identity)) among the lanes
    holding the best key (holds = key == Reduce(key))."""
    if not re.match(r"OpGroupNonUniform[SU](Min|Max)$", m.op("%" + r) or "") or "Reduce" not in ops:
        return False
    sel = ops[-1]
    if m.op(sel) != "OpSelect":
        return False
    holds = m.operands(sel)[1]
    if m.op(holds) not in ("OpIEqual", "OpFOrdEqual"):
        return False
    best = m.operands(holds)[2]
    return (m.op(best) or "").startswith("OpGroupNonUniform") and "Reduce" in m.operands(best)


def other_extreme(m, ident):
    """The identity of the opposite index order: 0 <-> 0xffffffff (or the
    signed extremes), added to the module when it has none."""
    type_id, value = m.operands(ident)
    signed = m.inst(m.defs[type_id.lstrip("%")])[2][-1] == "1"
    pairs = {"0": "4294967295", "4294967295": "0", "2147483647": "-2147483648",
             "-2147483648": "2147483647"}
    want = pairs[value]
    if signed and value == "0":
        want = "2147483647"
    for ident2, i in m.defs.items():
        inst = m.inst(i)
        if inst[1] == "OpConstant" and inst[2] == [type_id, want]:
            return "%" + ident2
    new = m.new_id()
    m.lines.insert(m.defs[ident.lstrip("%")] + 1, f"%{new} = OpConstant {type_id} {want}")
    return "%" + new


def pair_tie_flip(m):
    # Ties by position (a rank from the bit-reversed invocation index):
    # rank = reverse(tid) >> s -> (2^(32-s) - 1) - rank.
    hits = [("rank", m.inst(i)[0])
            for i in m.find("OpShiftRightLogical", lambda r, ops: m.op(ops[1]) == "OpBitReverse")]
    if not hits:
        # Ties by index: the subgroup step's Min <-> Max of the indices
        # among the lanes holding the best key (with the other identity),
        # and the fold's index comparison of a tie (equal && less(b, a)).
        for op in ("UMin", "UMax", "SMin", "SMax"):
            hits += [("reduce", m.inst(i)[0]) for i in m.find(
                "OpGroupNonUniform" + op, lambda r, ops: index_reduce(m, r, ops))]
        hits += [("fold", m.operands(m.inst(i)[0])[2]) for i in m.find(
            "OpLogicalAnd", lambda r, ops: m.op(ops[1]) in ("OpIEqual", "OpFOrdEqual")
            and m.op(ops[2]) in ("OpULessThan", "OpSLessThan")
            and m.op(m.operands(ops[2])[2]) == "OpPhi"
            and m.op(m.operands(ops[2])[1]) == "OpLoad")]
    for kind, ident in hits:
        m.__init__("\n".join(m.lines))
        i = m.defs[ident.lstrip("%")]
        result, opcode, ops = m.inst(i)
        if kind == "reduce":
            flip = opcode.replace("Min", "X").replace("Max", "Min").replace("X", "Max")
            m.lines[i] = m.lines[i].replace(opcode, flip)
            sel = m.defs[ops[-1].lstrip("%")]
            s_ops = m.inst(sel)[2]
            m.set_operands(sel, s_ops[:3] + [other_extreme(m, s_ops[3])])
        elif kind == "fold":
            m.set_operands(i, [ops[0], ops[2], ops[1]])
            phi = m.defs[ops[2].lstrip("%")]
            p_ops = m.inst(phi)[2]
            m.set_operands(phi, [p_ops[0], other_extreme(m, p_ops[1])] + p_ops[2:])
        else:
            shift = m.operands(ops[2])[1]
            top = str((1 << (32 - int(shift))) - 1)
            const = m.new_id()
            m.lines.insert(m.defs[ops[2].lstrip("%")] + 1, f"%{const} = OpConstant {ops[0]} {top}")
            m.__init__("\n".join(m.lines))
            i = m.defs[result]
            flipped = m.new_id()
            m.lines[i] = m.lines[i].replace(f"%{result} = ", f"%{flipped} = ")
            m.lines.insert(i + 1, f"%{result} = OpISub {ops[0]} %{const} %{flipped}")
    return hits


def no_store_back(m):
    index = builtin_loads(m, "LocalInvocationIndex")
    hits = []
    for i in range(len(m.lines)):
        inst = m.inst(i)
        if not inst or inst[1] != "OpBranchConditional" or m.op(inst[2][0]) != "OpIEqual":
            continue
        if not any(x in index for x in m.operands(inst[2][0])[1:]):
            continue
        j = m.defs[inst[2][1].lstrip("%")] + 1
        while j < len(m.lines):
            s = m.inst(j)
            if s and s[1] in ("OpBranch", "OpBranchConditional", "OpReturn"):
                break
            if s and s[1] == "OpStore" and m.op(s[2][0]) == "OpAccessChain":
                base = m.operands(s[2][0])[1]
                if m.op(base) == "OpVariable" and "Workgroup" in m.operands(base):
                    hits.append(j)
            j += 1
    return remove_lines(m, sorted(hits))


MUTANTS = {
    "owner-lane-k": owner_lane_k,
    "whole-subgroup": whole_subgroup,
    "first-whole-batch": first_whole_batch,
    "no-exit-ballot": no_exit_ballot,
    "one-more-trip": one_more_trip,
    "no-bounds": no_bounds,
    "first-slot-only": first_slot_only,
    "no-identity": no_identity,
    "no-slot-barrier": no_slot_barrier,
    "merge-any-barrier": merge_any_barrier,
    "mix-rows": mix_rows,
    "pair-no-nan-test": pair_no_nan_test,
    "sink-past-write": sink_past_write,
    "pair-tie-flip": pair_tie_flip,
    "pair-no-bound": pair_no_bound,
    "spec-rows-unguarded": spec_rows_unguarded,
    "row-select-swap": row_select_swap,
    "pair-bound-no-first": pair_bound_no_first,
    "no-store-back": no_store_back,
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
