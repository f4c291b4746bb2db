/*
 * acksrv: the benchmark's local Overland receiver, and a trivial client to measure its
 * ceiling. Compiled by bench/run with `gcc -O2 -o acksrv acksrv.c`.
 *
 *   acksrv serve PORTFILE STATSFILE
 *       Listens on 127.0.0.1 (a free port, written to PORTFILE). Answers every request
 *       with 200 and {"result":"ok"} after reading its whole body (Content-Length or
 *       chunked), without parsing it: HTTP/1.1 keep-alive, epoll, one thread. On SIGTERM
 *       or SIGINT writes "requests N body_bytes B" to STATSFILE and exits.
 *
 *   acksrv client PORT REQUESTS BODYFILE
 *       POSTs BODYFILE REQUESTS times over one keep-alive connection, each after the
 *       previous reply (as overland-sync does), and prints "requests N seconds S".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char REPLY[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"result\":\"ok\"}";

enum state { HEAD, BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_CRLF, TRAILER };

struct conn {
    int fd;
    enum state st;
    char head[16384]; /* request head, or the current chunk-size / trailer line */
    size_t headlen;
    long long left; /* body or chunk bytes still to read */
};

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }
static unsigned long long requests, body_bytes;

static int find_header(const char *head, const char *name, char *value, size_t cap) {
    size_t n = strlen(name);
    for (const char *p = strstr(head, "\r\n"); p && p[2]; p = strstr(p + 2, "\r\n")) {
        const char *line = p + 2;
        if (strncasecmp(line, name, n) == 0 && line[n] == ':') {
            const char *v = line + n + 1;
            while (*v == ' ' || *v == '\t') v++;
            const char *e = strstr(v, "\r\n");
            size_t len = e ? (size_t)(e - v) : strlen(v);
            if (len >= cap) len = cap - 1;
            memcpy(value, v, len);
            value[len] = 0;
            return 1;
        }
    }
    return 0;
}

static int reply(struct conn *c) {
    size_t off = 0, len = sizeof REPLY - 1;
    while (off < len) {
        ssize_t w = write(c->fd, REPLY + off, len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) { /* tiny reply; wait for the socket */
                struct timespec ts = {0, 100000};
                nanosleep(&ts, 0);
                continue;
            }
            return -1;
        }
        off += (size_t)w;
    }
    requests++;
    c->st = HEAD;
    c->headlen = 0;
    return 0;
}

/* Consumes n bytes of input; returns -1 to close the connection. */
static int feed(struct conn *c, const char *p, size_t n) {
    while (n > 0) {
        switch (c->st) {
        case BODY:
        case CHUNK_DATA: {
            size_t take = (long long)n < c->left ? n : (size_t)c->left;
            c->left -= (long long)take;
            body_bytes += take;
            p += take;
            n -= take;
            if (c->left == 0) {
                if (c->st == BODY) {
                    if (reply(c) < 0) return -1;
                } else {
                    c->st = CHUNK_CRLF;
                    c->headlen = 0;
                }
            }
            break;
        }
        default: {
            /* line-oriented states: accumulate up to the end of the head or the line */
            if (c->headlen + 1 >= sizeof c->head) return -1;
            c->head[c->headlen++] = *p++;
            n--;
            c->head[c->headlen] = 0;
            if (c->st == HEAD) {
                if (c->headlen >= 4 && memcmp(c->head + c->headlen - 4, "\r\n\r\n", 4) == 0) {
                    char value[64];
                    if (find_header(c->head, "Transfer-Encoding", value, sizeof value) && strcasestr(value, "chunked")) {
                        c->st = CHUNK_SIZE;
                        c->headlen = 0;
                    } else {
                        c->left = find_header(c->head, "Content-Length", value, sizeof value) ? atoll(value) : 0;
                        if (c->left == 0) {
                            if (reply(c) < 0) return -1;
                        } else {
                            c->st = BODY;
                        }
                    }
                }
            } else if (c->headlen >= 2 && c->head[c->headlen - 2] == '\r' && c->head[c->headlen - 1] == '\n') {
                if (c->st == CHUNK_SIZE) {
                    c->left = strtoll(c->head, 0, 16);
                    c->headlen = 0;
                    c->st = c->left == 0 ? TRAILER : CHUNK_DATA;
                } else if (c->st == CHUNK_CRLF) {
                    c->st = CHUNK_SIZE;
                    c->headlen = 0;
                } else { /* TRAILER: an empty line ends the message */
                    if (c->headlen == 2) {
                        if (reply(c) < 0) return -1;
                    } else {
                        c->headlen = 0;
                    }
                }
            }
            /* fast path for the head: copy in bulk is not worth it at these sizes */
        }
        }
    }
    return 0;
}

static int serve(const char *portfile, const char *statsfile) {
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) < 0 || listen(ls, 64) < 0) { perror("acksrv: bind"); return 1; }
    socklen_t al = sizeof a;
    getsockname(ls, (struct sockaddr *)&a, &al);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", portfile);
    FILE *f = fopen(tmp, "w");
    fprintf(f, "%d\n", ntohs(a.sin_port));
    fclose(f);
    rename(tmp, portfile);

    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, 0);
    sigaction(SIGINT, &sa, 0);
    signal(SIGPIPE, SIG_IGN);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = 0};
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    static char buf[1 << 18];
    while (!stop) {
        struct epoll_event evs[64];
        int n = epoll_wait(ep, evs, 64, 200);
        for (int i = 0; i < n; i++) {
            struct conn *c = evs[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(ls, 0, 0, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    c = calloc(1, sizeof *c);
                    c->fd = fd;
                    struct epoll_event ce = {.events = EPOLLIN, .data.ptr = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ce);
                }
                continue;
            }
            for (;;) {
                ssize_t r = read(c->fd, buf, sizeof buf);
                if (r > 0) {
                    if (feed(c, buf, (size_t)r) < 0) r = 0; else continue;
                }
                if (r < 0 && (errno == EAGAIN || errno == EINTR)) break;
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, 0);
                close(c->fd);
                free(c);
                break;
            }
        }
    }
    f = fopen(statsfile, "w");
    if (f) {
        fprintf(f, "requests %llu body_bytes %llu\n", requests, body_bytes);
        fclose(f);
    }
    return 0;
}

static int client(int port, long count, const char *bodyfile) {
    FILE *f = fopen(bodyfile, "rb");
    if (!f) { perror(bodyfile); return 1; }
    struct stat st;
    fstat(fileno(f), &st);
    size_t blen = (size_t)st.st_size;
    char *req = malloc(blen + 512);
    int hl = snprintf(req, 512,
                      "POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                      port, blen);
    if (fread(req + hl, 1, blen, f) != blen) { perror("read"); return 1; }
    fclose(f);
    size_t total = (size_t)hl + blen;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect"); return 1; }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char rbuf[4096];
    for (long i = 0; i < count; i++) {
        size_t off = 0;
        while (off < total) {
            ssize_t w = write(fd, req + off, total - off);
            if (w <= 0) { perror("write"); return 1; }
            off += (size_t)w;
        }
        size_t got = 0;
        while (got < sizeof REPLY - 1) {
            ssize_t r = read(fd, rbuf, sizeof rbuf);
            if (r <= 0) { perror("read reply"); return 1; }
            got += (size_t)r;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("requests %ld seconds %.6f\n", count, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "serve") == 0) return serve(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "client") == 0) return client(atoi(argv[2]), atol(argv[3]), argv[4]);
    fprintf(stderr, "usage: acksrv serve PORTFILE STATSFILE | acksrv client PORT REQUESTS BODYFILE\n");
    return 64;
}
