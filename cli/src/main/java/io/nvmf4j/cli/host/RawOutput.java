package io.nvmf4j.cli.host;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** nvme-cli's {@code d_raw()}: the bytes of a structure unchanged on stdout ({@code -o binary}, {@code -b}). */
final class RawOutput {

    /** Tests point this elsewhere; the CLI writes to file descriptor 1. */
    static OutputStream target = new FileOutputStream(FileDescriptor.out);

    private RawOutput() {
    }

    static void write(MemorySegment data) throws IOException {
        target.write(data.toArray(ValueLayout.JAVA_BYTE));
        target.flush();
    }
}
