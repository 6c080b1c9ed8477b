"""Load every config of a built folder with datasets.load_dataset and print a line each."""
import sys

from datasets import get_dataset_config_names, load_dataset


def main(folder: str) -> None:
    for config in get_dataset_config_names(folder):
        ds = load_dataset(folder, config, split="train")
        print(f"{config:14s} {ds.num_rows:6d} rows  columns: {', '.join(ds.column_names)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/sample")
