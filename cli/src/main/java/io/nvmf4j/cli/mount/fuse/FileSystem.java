package io.nvmf4j.cli.mount.fuse;

import java.lang.foreign.MemorySegment;

/**
 * The low-level operations a {@link FuseSession} forwards, one method per {@code struct fuse_lowlevel_ops} member
 * it implements. Each call must end in exactly one reply on its {@link FuseRequest}, now or later from any thread
 * (libfuse's {@code fuse_reply_*} are thread-safe). Methods run on the session's loop thread and must not block:
 * anything that waits on the network replies from a completion.
 */
public interface FileSystem {

    /** {@code init}: negotiate {@code struct fuse_conn_info} (capable/want, max_write, max_background...). */
    void init(MemorySegment connInfo);

    void lookup(FuseRequest request, long parent, String name);

    void getattr(FuseRequest request, long ino);

    /** {@code attr} is a {@code struct stat}, {@code toSet} a mask of FUSE_SET_ATTR_*. */
    void setattr(FuseRequest request, long ino, MemorySegment attr, int toSet);

    /** {@code fileInfo} is the {@code struct fuse_file_info} to fill (fh, {@link FileInfoBits}) and reply with. */
    void open(FuseRequest request, long ino, MemorySegment fileInfo);

    void read(FuseRequest request, long ino, long size, long offset);

    /** {@code data} is valid only during this call: copy what outlives it. */
    void write(FuseRequest request, long ino, MemorySegment data, long offset);

    void fsync(FuseRequest request, long ino, boolean datasync);

    void readdir(FuseRequest request, long ino, long size, long offset);

    /** {@code mode} is fallocate(2)'s FALLOC_FL_* mask. */
    void fallocate(FuseRequest request, long ino, int mode, long offset, long length);
}
