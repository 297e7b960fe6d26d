#!/usr/bin/env python3
"""Fetch the public CUDA sources the public corpus is built from.

    python3 testdata/public/gen/fetch.py                        # git over the network
    python3 testdata/public/gen/fetch.py --mirror /work/.mirror # local bare repositories
    python3 testdata/public/gen/fetch.py --check                # is src/ exactly the recipe?

recipe.json names, for each project, its GitHub repository, the commit it is
pinned at, its license, and the exact files used with their SHA-256. This
script recreates testdata/public/src/<project>/<path> from that commit and
nothing else: every file is checked against its digest, and files under
src/<project>/ that the recipe does not name are removed. src/ is ignored by
git (it is other people's code): only the recipe and this script are ours.

Sources of the commit, tried in order:
  --mirror DIR   a bare git directory DIR/<owner>+<name>/repo (or
                 DIR/<owner>+<name>, or DIR/<name>.git) holding the commit;
  network        `git fetch --depth 1 --filter=blob:none <url> <commit>` into
                 a temporary repository (blobs are fetched as read), falling
                 back to a full shallow fetch of that commit.

--pin (with --mirror or network) rewrites the digests in recipe.json from the
pinned commit, for adding files to the recipe; it never changes a commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RECIPE = os.path.join(HERE, "recipe.json")
DEFAULT_DEST = os.path.join(os.path.dirname(HERE), "src")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def git(gitdir, *args, check=True):
    p = subprocess.run(["git", "--git-dir", gitdir, *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if check and p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.decode(errors='replace').strip()}")
    return p


def mirror_dir(mirror, repo):
    owner, name = repo.split("/")
    for cand in (os.path.join(mirror, f"{owner}+{name}", "repo"), os.path.join(mirror, f"{owner}+{name}"),
                 os.path.join(mirror, f"{name}.git"), os.path.join(mirror, name)):
        if os.path.isdir(cand) and git(cand, "rev-parse", "--git-dir", check=False).returncode == 0:
            return cand
    return None


def has_commit(gitdir, commit):
    return git(gitdir, "cat-file", "-e", commit + "^{commit}", check=False).returncode == 0


def network_dir(url, commit, tmp):
    """A bare repository holding the commit: a shallow partial fetch (blobs
    come on demand, when read), else a plain shallow fetch of the commit."""
    for i, partial in enumerate((True, False)):
        d = os.path.join(tmp, f"repo{i}.git")
        subprocess.run(["git", "init", "-q", "--bare", d], check=True)
        git(d, "remote", "add", "origin", url)
        extra = []
        if partial:
            git(d, "config", "core.repositoryformatversion", "1")
            git(d, "config", "extensions.partialClone", "origin")
            extra = ["--filter=blob:none"]
        p = subprocess.run(["git", "--git-dir", d, "fetch", "-q", "--depth", "1", *extra, "origin", commit],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode == 0 and has_commit(d, commit):
            return d
        sys.stderr.write(f"  git fetch {' '.join(extra)} {url} {commit}: "
                         f"{p.stdout.decode(errors='replace').strip()[-300:]}\n")
    raise RuntimeError(f"cannot fetch {commit} from {url}")


def read_blob(gitdir, commit, path):
    return git(gitdir, "show", f"{commit}:{path}").stdout


def load_recipe():
    with open(RECIPE) as f:
        return json.load(f)


def expected_files(recipe):
    """{dest-relative path: sha256} over every project."""
    out = {}
    for p in recipe["projects"]:
        for path, digest in p["files"].items():
            out[f"{p['name']}/{path}"] = digest
    return out


def check(dest, recipe):
    """Problems with dest as a copy of the recipe (empty: exact)."""
    problems = []
    want = expected_files(recipe)
    for rel, digest in sorted(want.items()):
        fp = os.path.join(dest, rel)
        if not os.path.isfile(fp):
            problems.append(f"missing {rel}")
            continue
        with open(fp, "rb") as f:
            if sha256(f.read()) != digest:
                problems.append(f"differs {rel}")
    names = {p["name"] for p in recipe["projects"]}
    for root, _, files in os.walk(dest):
        for fn in files:
            rel = os.path.relpath(os.path.join(root, fn), dest).replace(os.sep, "/")
            if rel.split("/")[0] in names and rel not in want:
                problems.append(f"extra {rel}")
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", help="folder of bare git repositories (owner+name/repo)")
    ap.add_argument("--dest", default=DEFAULT_DEST, help=f"where to write (default {DEFAULT_DEST})")
    ap.add_argument("--only", help="comma-separated project names")
    ap.add_argument("--check", action="store_true", help="only check dest against the recipe")
    ap.add_argument("--pin", action="store_true", help="rewrite the recipe's digests from the commit")
    args = ap.parse_args(argv)

    recipe = load_recipe()
    dest = os.path.abspath(args.dest)
    if args.check:
        problems = check(dest, recipe)
        for p in problems:
            print(p)
        n = len(expected_files(recipe))
        print(f"{dest}: {n} files, {'exact' if not problems else f'{len(problems)} problem(s)'}")
        return 1 if problems else 0

    only = set(args.only.split(",")) if args.only else None
    failed = []
    for proj in recipe["projects"]:
        if only and proj["name"] not in only:
            continue
        commit = proj["commit"]
        tmp = tempfile.mkdtemp(prefix="public-fetch.")
        try:
            gd = mirror_dir(args.mirror, proj["repo"]) if args.mirror else None
            if gd is not None and not has_commit(gd, commit):
                sys.stderr.write(f"{proj['name']}: {gd} lacks {commit}\n")
                gd = None
            if gd is None:
                if args.mirror:
                    sys.stderr.write(f"{proj['name']}: not in {args.mirror}; fetching {proj['url']}\n")
                gd = network_dir(proj["url"], commit, tmp)
            pdir = os.path.join(dest, proj["name"])
            if os.path.isdir(pdir):
                shutil.rmtree(pdir)
            total = 0
            for path in sorted(proj["files"]):
                data = read_blob(gd, commit, path)
                digest = sha256(data)
                if args.pin:
                    proj["files"][path] = digest
                elif digest != proj["files"][path]:
                    raise RuntimeError(f"{path}: sha256 {digest} is not the recipe's {proj['files'][path]}")
                fp = os.path.join(pdir, path)
                os.makedirs(os.path.dirname(fp), exist_ok=True)
                with open(fp, "wb") as f:
                    f.write(data)
                total += len(data)
            print(f"{proj['name']}: {len(proj['files'])} files, {total} bytes from {proj['repo']}@{commit[:12]}")
        except Exception as e:  # noqa: BLE001
            failed.append(proj["name"])
            sys.stderr.write(f"{proj['name']}: FAILED: {e}\n")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.pin:
        with open(RECIPE, "w") as f:
            json.dump(recipe, f, indent=1)
            f.write("\n")
        print(f"pinned digests written to {RECIPE}")
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    if not only:
        problems = check(dest, recipe)
        if problems:
            for p in problems:
                print(p)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
