package org.wideec.transport;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

/**
 * A man in the middle for tests: relays connections to a slice port and, in the producer's direction, flips one
 * bit of every SLICE payload and rewrites the frame's CRC32C to match, as an attacker on the wire would. Only a
 * frame MAC can catch it. The first two frames from the producer (CHALLENGE, AUTH_OK) carry no tag; later ones carry
 * a tag (none for an unauthenticated session) of the frame MAC a client of the default preference picks from the
 * CHALLENGE's offer.
 */
public final class TamperingRelay implements AutoCloseable {
  private final ServerSocket server;
  private final boolean authenticated;
  private final AtomicInteger tampered = new AtomicInteger();

  public TamperingRelay(int targetPort, boolean authenticated) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.authenticated = authenticated;
    relayAll(server, targetPort, "tampering-relay", COPY, this::tamper);
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Slices altered so far. */
  public int tampered() {
    return tampered.get();
  }

  /** One direction of a relayed connection, from one end's input to the other's output. */
  interface Direction {
    void run(InputStream from, OutputStream to) throws IOException;
  }

  /** A direction that forwards every byte unchanged. */
  static final Direction COPY = (from, to) -> from.transferTo(to);

  /**
   * Accepts connections on {@code server} until it closes (on a daemon thread), relaying each to the loopback port
   * {@code target}: {@code up} from the client to the target, {@code down} back.
   */
  static void relayAll(ServerSocket server, int target, String name, Direction up, Direction down) {
    Thread t = new Thread(() -> {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          Socket peer = new Socket(InetAddress.getLoopbackAddress(), target);
          pump(name + "-up", () -> up.run(client.getInputStream(), peer.getOutputStream()), client, peer);
          pump(name + "-down", () -> down.run(peer.getInputStream(), client.getOutputStream()), client, peer);
        } catch (IOException e) {
          return; // closed
        }
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  /** One direction of a relayed connection. */
  interface Copy {
    void run() throws IOException;
  }

  /** Runs one direction on a daemon thread; when it ends (either side went away), both sockets close. */
  static void pump(String name, Copy copy, Socket a, Socket b) {
    Thread t = new Thread(() -> {
      try {
        copy.run();
      } catch (IOException ignored) {
        // one side went away: so does the other
      } finally {
        close(a);
        close(b);
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }

  private void tamper(InputStream from, OutputStream to) throws IOException {
    DataInputStream in = new DataInputStream(from);
    int tagBytes = 0;
    for (int frame = 0; ; frame++) {
      byte[] header = new byte[FrameCodec.HEADER];
      in.readFully(header);
      int len = java.nio.ByteBuffer.wrap(header, 16, 4).getInt();
      if (frame == 0 && authenticated) { // the CHALLENGE: its index is the server's offer
        tagBytes = FrameMac.DEFAULT.pick(java.nio.ByteBuffer.wrap(header, 12, 4).getInt()).tagLength();
      }
      byte[] rest = new byte[len + (frame >= 2 ? tagBytes : 0)];
      in.readFully(rest);
      if (header[3] == FrameType.SLICE.ordinal() && len > 0) {
        rest[0] ^= 1;
        CRC32C crc = new CRC32C();
        crc.update(rest, 0, len);
        java.nio.ByteBuffer.wrap(header, 20, 4).putInt((int) crc.getValue());
        tampered.incrementAndGet();
      }
      to.write(header);
      to.write(rest);
      to.flush();
    }
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
