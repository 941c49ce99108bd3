package io.nvmf4j.cli.perf;

/** A block read back under {@code --verify} is not what was last written to it. */
public final class VerifyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long lba;

    public VerifyException(long lba, long expectedGeneration, int offset, String found) {
        super("data mismatch at LBA " + lba + " (byte " + offset + " of the block): expected generation "
                + expectedGeneration + " of this run, found " + found);
        this.lba = lba;
    }

    public long lba() {
        return lba;
    }
}
