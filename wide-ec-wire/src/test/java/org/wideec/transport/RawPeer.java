package org.wideec.transport;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.wideec.topology.Endpoint;
import org.wideec.topology.Site;

/**
 * A peer that speaks the slice protocol by hand over a plain socket, without authentication tags (an anonymous
 * session, or before the handshake): what a test uses to send what our own client never would.
 */
final class RawPeer implements AutoCloseable {
  final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  RawPeer(int port, int readTimeoutMs) throws IOException {
    this(null, port, readTimeoutMs);
  }

  /** A peer from another local address ({@code from}: 127.0.0.2 and up stand in for other hosts on Linux). */
  RawPeer(InetAddress from, int port, int readTimeoutMs) throws IOException {
    socket = from == null ? new Socket(InetAddress.getLoopbackAddress(), port)
        : new Socket(InetAddress.getLoopbackAddress(), port, from, 0);
    socket.setSoTimeout(readTimeoutMs);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
  }

  record Received(FrameType type, int index, byte[] payload) {
    String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }
  }

  void send(FrameType type, int index, byte[] payload) throws IOException {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    out.writeShort(FrameCodec.MAGIC);
    out.writeByte(FrameCodec.VERSION);
    out.writeByte(type.ordinal());
    out.writeLong(1);
    out.writeInt(index);
    out.writeInt(payload.length);
    out.writeInt((int) crc.getValue());
    out.write(payload);
    out.flush();
  }

  /** The next frame, or null when the server closed the connection. */
  Received receive() throws IOException {
    byte[] header = new byte[FrameCodec.HEADER];
    try {
      in.readFully(header);
    } catch (java.io.EOFException e) {
      return null;
    }
    java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(header);
    byte[] payload = new byte[h.getInt(16)];
    in.readFully(payload);
    return new Received(FrameType.of(header[3]), h.getInt(12), payload);
  }

  /** Answers the challenge anonymously and sends a request with the given body; returns AUTH_OK. */
  Received anonymousRequest(byte[] body) throws IOException {
    Received challenge = receive();
    if (challenge == null || challenge.type() != FrameType.CHALLENGE) {
      throw new IOException("expected CHALLENGE, got " + challenge);
    }
    send(FrameType.AUTH, 0, Handshake.clientResponse(Credential.anonymous(), challenge.payload(), Handshake.nonce()));
    Received ok = receive();
    send(FrameType.REQUEST, 0,
        PeerStream.requestPayload("raw", "/raw", new Endpoint("127.0.0.1", 1, new Site("server", "/r")), body));
    return ok;
  }

  /** Proves {@code credential} in the handshake (frame MACs negotiated as by a peer that predates the choice). */
  Received authenticate(Credential credential) throws IOException {
    Received challenge = receive();
    if (challenge == null || challenge.type() != FrameType.CHALLENGE) {
      throw new IOException("expected CHALLENGE, got " + challenge);
    }
    send(FrameType.AUTH, 0, Handshake.clientResponse(credential.toServer(challenge.index()), challenge.payload(),
        Handshake.nonce()));
    return receive();
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
