package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;

/** Shared checks for the typed admin command views: one place that rejects a wrong opcode with its name. */
final class CommandViews {

    private CommandViews() {
    }

    static SubmissionQueueEntry requireOpcode(SubmissionQueueEntry sqe, AdminOpcode expected) {
        if (sqe.opcode() != expected.code()) {
            throw new MalformedStructureException(String.format(
                    "expected %s command (opcode %02xh), got opcode %02xh", expected.name(), expected.code(), sqe.opcode()));
        }
        return sqe;
    }

    /** Clears the entry and sets the opcode: the start of every builder. */
    static SubmissionQueueEntry start(SubmissionQueueEntry sqe, AdminOpcode opcode) {
        sqe.clear();
        sqe.opcode(opcode.code());
        return sqe;
    }

    static int bits(int dword, int low, int width) {
        return (dword >>> low) & ((1 << width) - 1);
    }

    static int withBits(int dword, int low, int width, int value) {
        int mask = ((1 << width) - 1) << low;
        return (dword & ~mask) | ((value << low) & mask);
    }

    static void checkRange(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " " + value + " outside " + min + ".." + max);
        }
    }
}
